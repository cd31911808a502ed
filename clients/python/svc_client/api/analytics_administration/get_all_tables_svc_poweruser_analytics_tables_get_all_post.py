from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.empty_request import EmptyRequest
from ...models.http_validation_error import HTTPValidationError
from ...models.tables_answer import TablesAnswer
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    body: EmptyRequest | None | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/svc_poweruser/analytics/tables/get-all",
    }

    
    if isinstance(body, EmptyRequest):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> HTTPValidationError | TablesAnswer | None:
    if response.status_code == 200:
        response_200 = TablesAnswer.from_dict(response.json())



        return response_200

    if response.status_code == 422:
        response_422 = HTTPValidationError.from_dict(response.json())



        return response_422

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[HTTPValidationError | TablesAnswer]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: EmptyRequest | None | Unset = UNSET,

) -> Response[HTTPValidationError | TablesAnswer]:
    """ Get All Tables

     The tables the caller may read, by SQL name, each with its columns as the caller's grant shows them.

    Args:
        body (EmptyRequest | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[HTTPValidationError | TablesAnswer]
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
    body: EmptyRequest | None | Unset = UNSET,

) -> HTTPValidationError | TablesAnswer | None:
    """ Get All Tables

     The tables the caller may read, by SQL name, each with its columns as the caller's grant shows them.

    Args:
        body (EmptyRequest | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        HTTPValidationError | TablesAnswer
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: EmptyRequest | None | Unset = UNSET,

) -> Response[HTTPValidationError | TablesAnswer]:
    """ Get All Tables

     The tables the caller may read, by SQL name, each with its columns as the caller's grant shows them.

    Args:
        body (EmptyRequest | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[HTTPValidationError | TablesAnswer]
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
    body: EmptyRequest | None | Unset = UNSET,

) -> HTTPValidationError | TablesAnswer | None:
    """ Get All Tables

     The tables the caller may read, by SQL name, each with its columns as the caller's grant shows them.

    Args:
        body (EmptyRequest | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        HTTPValidationError | TablesAnswer
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
