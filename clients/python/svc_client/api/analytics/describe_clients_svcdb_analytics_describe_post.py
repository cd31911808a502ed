from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.describe_clients_svcdb_analytics_describe_post_response_describe_clients_svcdb_analytics_describe_post import DescribeClientsSvcdbAnalyticsDescribePostResponseDescribeClientsSvcdbAnalyticsDescribePost
from ...models.describe_request import DescribeRequest
from ...models.http_validation_error import HTTPValidationError
from typing import cast



def _get_kwargs(
    *,
    body: DescribeRequest,
    resource_id: str,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    params: dict[str, Any] = {}

    params["resourceId"] = resource_id


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/clients/svcdb/analytics/describe",
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> DescribeClientsSvcdbAnalyticsDescribePostResponseDescribeClientsSvcdbAnalyticsDescribePost | HTTPValidationError | None:
    if response.status_code == 200:
        response_200 = DescribeClientsSvcdbAnalyticsDescribePostResponseDescribeClientsSvcdbAnalyticsDescribePost.from_dict(response.json())



        return response_200

    if response.status_code == 422:
        response_422 = HTTPValidationError.from_dict(response.json())



        return response_422

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[DescribeClientsSvcdbAnalyticsDescribePostResponseDescribeClientsSvcdbAnalyticsDescribePost | HTTPValidationError]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: DescribeRequest,
    resource_id: str,

) -> Response[DescribeClientsSvcdbAnalyticsDescribePostResponseDescribeClientsSvcdbAnalyticsDescribePost | HTTPValidationError]:
    """ Describe

    Args:
        resource_id (str):
        body (DescribeRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DescribeClientsSvcdbAnalyticsDescribePostResponseDescribeClientsSvcdbAnalyticsDescribePost | HTTPValidationError]
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
    body: DescribeRequest,
    resource_id: str,

) -> DescribeClientsSvcdbAnalyticsDescribePostResponseDescribeClientsSvcdbAnalyticsDescribePost | HTTPValidationError | None:
    """ Describe

    Args:
        resource_id (str):
        body (DescribeRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DescribeClientsSvcdbAnalyticsDescribePostResponseDescribeClientsSvcdbAnalyticsDescribePost | HTTPValidationError
     """


    return sync_detailed(
        client=client,
body=body,
resource_id=resource_id,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: DescribeRequest,
    resource_id: str,

) -> Response[DescribeClientsSvcdbAnalyticsDescribePostResponseDescribeClientsSvcdbAnalyticsDescribePost | HTTPValidationError]:
    """ Describe

    Args:
        resource_id (str):
        body (DescribeRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DescribeClientsSvcdbAnalyticsDescribePostResponseDescribeClientsSvcdbAnalyticsDescribePost | HTTPValidationError]
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
    body: DescribeRequest,
    resource_id: str,

) -> DescribeClientsSvcdbAnalyticsDescribePostResponseDescribeClientsSvcdbAnalyticsDescribePost | HTTPValidationError | None:
    """ Describe

    Args:
        resource_id (str):
        body (DescribeRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DescribeClientsSvcdbAnalyticsDescribePostResponseDescribeClientsSvcdbAnalyticsDescribePost | HTTPValidationError
     """


    return (await asyncio_detailed(
        client=client,
body=body,
resource_id=resource_id,

    )).parsed
