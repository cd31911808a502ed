from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.append_rows_answer import AppendRowsAnswer
from ...models.append_rows_clients_svcdb_analytics_append_rows_post_append_rows_request import AppendRowsClientsSvcdbAnalyticsAppendRowsPostAppendRowsRequest
from ...models.http_validation_error import HTTPValidationError
from typing import cast



def _get_kwargs(
    *,
    body: AppendRowsClientsSvcdbAnalyticsAppendRowsPostAppendRowsRequest,
    resource_id: str,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    params: dict[str, Any] = {}

    params["resourceId"] = resource_id


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/clients/svcdb/analytics/append-rows",
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> AppendRowsAnswer | HTTPValidationError | None:
    if response.status_code == 200:
        response_200 = AppendRowsAnswer.from_dict(response.json())



        return response_200

    if response.status_code == 422:
        response_422 = HTTPValidationError.from_dict(response.json())



        return response_422

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[AppendRowsAnswer | HTTPValidationError]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: AppendRowsClientsSvcdbAnalyticsAppendRowsPostAppendRowsRequest,
    resource_id: str,

) -> Response[AppendRowsAnswer | HTTPValidationError]:
    """ Append Rows

    Args:
        resource_id (str):
        body (AppendRowsClientsSvcdbAnalyticsAppendRowsPostAppendRowsRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AppendRowsAnswer | HTTPValidationError]
     """


    kwargs = _get_kwargs(
        body=body,
resource_id=resource_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient | Client,
    body: AppendRowsClientsSvcdbAnalyticsAppendRowsPostAppendRowsRequest,
    resource_id: str,

) -> AppendRowsAnswer | HTTPValidationError | None:
    """ Append Rows

    Args:
        resource_id (str):
        body (AppendRowsClientsSvcdbAnalyticsAppendRowsPostAppendRowsRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AppendRowsAnswer | HTTPValidationError
     """


    return sync_detailed(
        client=client,
body=body,
resource_id=resource_id,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: AppendRowsClientsSvcdbAnalyticsAppendRowsPostAppendRowsRequest,
    resource_id: str,

) -> Response[AppendRowsAnswer | HTTPValidationError]:
    """ Append Rows

    Args:
        resource_id (str):
        body (AppendRowsClientsSvcdbAnalyticsAppendRowsPostAppendRowsRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AppendRowsAnswer | HTTPValidationError]
     """


    kwargs = _get_kwargs(
        body=body,
resource_id=resource_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: AppendRowsClientsSvcdbAnalyticsAppendRowsPostAppendRowsRequest,
    resource_id: str,

) -> AppendRowsAnswer | HTTPValidationError | None:
    """ Append Rows

    Args:
        resource_id (str):
        body (AppendRowsClientsSvcdbAnalyticsAppendRowsPostAppendRowsRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AppendRowsAnswer | HTTPValidationError
     """


    return (await asyncio_detailed(
        client=client,
body=body,
resource_id=resource_id,

    )).parsed
