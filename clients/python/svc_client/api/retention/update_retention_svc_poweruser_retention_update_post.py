from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.http_validation_error import HTTPValidationError
from ...models.retention_answer import RetentionAnswer
from ...models.retention_update import RetentionUpdate
from typing import cast



def _get_kwargs(
    *,
    body: RetentionUpdate,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/svc_poweruser/retention/update",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> HTTPValidationError | RetentionAnswer | None:
    if response.status_code == 200:
        response_200 = RetentionAnswer.from_dict(response.json())



        return response_200

    if response.status_code == 422:
        response_422 = HTTPValidationError.from_dict(response.json())



        return response_422

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[HTTPValidationError | RetentionAnswer]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: RetentionUpdate,

) -> Response[HTTPValidationError | RetentionAnswer]:
    """ Update Retention

    Args:
        body (RetentionUpdate): Values to set, each between one hour and ten years; ``null`` goes
            back to the service's value, an
            omitted field is left as it is.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[HTTPValidationError | RetentionAnswer]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient | Client,
    body: RetentionUpdate,

) -> HTTPValidationError | RetentionAnswer | None:
    """ Update Retention

    Args:
        body (RetentionUpdate): Values to set, each between one hour and ten years; ``null`` goes
            back to the service's value, an
            omitted field is left as it is.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        HTTPValidationError | RetentionAnswer
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: RetentionUpdate,

) -> Response[HTTPValidationError | RetentionAnswer]:
    """ Update Retention

    Args:
        body (RetentionUpdate): Values to set, each between one hour and ten years; ``null`` goes
            back to the service's value, an
            omitted field is left as it is.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[HTTPValidationError | RetentionAnswer]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: RetentionUpdate,

) -> HTTPValidationError | RetentionAnswer | None:
    """ Update Retention

    Args:
        body (RetentionUpdate): Values to set, each between one hour and ten years; ``null`` goes
            back to the service's value, an
            omitted field is left as it is.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        HTTPValidationError | RetentionAnswer
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
