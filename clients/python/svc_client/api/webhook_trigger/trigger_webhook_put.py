from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.duplicate_webhook_response import DuplicateWebhookResponse
from ...models.execute_webhook_response import ExecuteWebhookResponse
from ...models.filtered_webhook_response import FilteredWebhookResponse
from typing import cast



def _get_kwargs(
    
) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/clients/custom-webhooks",
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | DuplicateWebhookResponse | FilteredWebhookResponse | ExecuteWebhookResponse | None:
    if response.status_code == 200:
        def _parse_response_200(data: object) -> DuplicateWebhookResponse | FilteredWebhookResponse:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                response_200_type_0 = FilteredWebhookResponse.from_dict(data)



                return response_200_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            response_200_type_1 = DuplicateWebhookResponse.from_dict(data)



            return response_200_type_1

        response_200 = _parse_response_200(response.json())

        return response_200

    if response.status_code == 202:
        response_202 = ExecuteWebhookResponse.from_dict(response.json())



        return response_202

    if response.status_code == 400:
        response_400 = ExecuteWebhookResponse.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = cast(Any, None)
        return response_401

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | DuplicateWebhookResponse | FilteredWebhookResponse | ExecuteWebhookResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,

) -> Response[Any | DuplicateWebhookResponse | FilteredWebhookResponse | ExecuteWebhookResponse]:
    """ Deliver an event to a custom webhook

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | DuplicateWebhookResponse | FilteredWebhookResponse | ExecuteWebhookResponse]
     """


    kwargs = _get_kwargs(
        
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient | Client,

) -> Any | DuplicateWebhookResponse | FilteredWebhookResponse | ExecuteWebhookResponse | None:
    """ Deliver an event to a custom webhook

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | DuplicateWebhookResponse | FilteredWebhookResponse | ExecuteWebhookResponse
     """


    return sync_detailed(
        client=client,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,

) -> Response[Any | DuplicateWebhookResponse | FilteredWebhookResponse | ExecuteWebhookResponse]:
    """ Deliver an event to a custom webhook

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | DuplicateWebhookResponse | FilteredWebhookResponse | ExecuteWebhookResponse]
     """


    kwargs = _get_kwargs(
        
    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient | Client,

) -> Any | DuplicateWebhookResponse | FilteredWebhookResponse | ExecuteWebhookResponse | None:
    """ Deliver an event to a custom webhook

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | DuplicateWebhookResponse | FilteredWebhookResponse | ExecuteWebhookResponse
     """


    return (await asyncio_detailed(
        client=client,

    )).parsed
