from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.http_validation_error import HTTPValidationError
from ...models.shares_answer import SharesAnswer
from ...models.webhook_id_request import WebhookIdRequest
from typing import cast



def _get_kwargs(
    *,
    body: WebhookIdRequest,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/svc_poweruser/custom-webhooks/get-shares",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> HTTPValidationError | SharesAnswer | None:
    if response.status_code == 200:
        response_200 = SharesAnswer.from_dict(response.json())



        return response_200

    if response.status_code == 422:
        response_422 = HTTPValidationError.from_dict(response.json())



        return response_422

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[HTTPValidationError | SharesAnswer]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: WebhookIdRequest,

) -> Response[HTTPValidationError | SharesAnswer]:
    """ Get Webhook Shares

     svc's addition: who a webhook is shared with, for those who may change it (ADMIN, as /share).

    Args:
        body (WebhookIdRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[HTTPValidationError | SharesAnswer]
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
    body: WebhookIdRequest,

) -> HTTPValidationError | SharesAnswer | None:
    """ Get Webhook Shares

     svc's addition: who a webhook is shared with, for those who may change it (ADMIN, as /share).

    Args:
        body (WebhookIdRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        HTTPValidationError | SharesAnswer
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: WebhookIdRequest,

) -> Response[HTTPValidationError | SharesAnswer]:
    """ Get Webhook Shares

     svc's addition: who a webhook is shared with, for those who may change it (ADMIN, as /share).

    Args:
        body (WebhookIdRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[HTTPValidationError | SharesAnswer]
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
    body: WebhookIdRequest,

) -> HTTPValidationError | SharesAnswer | None:
    """ Get Webhook Shares

     svc's addition: who a webhook is shared with, for those who may change it (ADMIN, as /share).

    Args:
        body (WebhookIdRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        HTTPValidationError | SharesAnswer
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
