from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="QueryRequest")



@_attrs_define
class QueryRequest:
    """ 
        Attributes:
            table_id (str):
            sql (str):
            max_rows (int | None | Unset): Rows kept in the result, at least 1; default and cap: the plan's result-row limit
                (more answers 413 ROW_LIMIT). A larger result is cut off and marked truncated
            max_bytes_scanned (int | None | Unset):
            wait_ms (int | Unset):  Default: 0.
            reveal (bool | Unset):  Default: False.
            request_id (None | str | Unset): The caller's id for this submission (1-128 of A-Z a-z 0-9 _ . : -): sent again
                by the same user within 24 hours it answers the same job, never a second run; with a different tableId, sql,
                maxRows or maxBytesScanned it is 400 INVALID_REQUEST
            use_query_cache (bool | Unset): Answer from the result of an earlier identical query when there is one (same
                SQL, same table snapshots, same effective grant, same maxRows): the job is SUCCEEDED at once with cacheHit true
                and bytesScanned 0. false always runs the query Default: True.
     """

    table_id: str
    sql: str
    max_rows: int | None | Unset = UNSET
    max_bytes_scanned: int | None | Unset = UNSET
    wait_ms: int | Unset = 0
    reveal: bool | Unset = False
    request_id: None | str | Unset = UNSET
    use_query_cache: bool | Unset = True





    def to_dict(self) -> dict[str, Any]:
        table_id = self.table_id

        sql = self.sql

        max_rows: int | None | Unset
        if isinstance(self.max_rows, Unset):
            max_rows = UNSET
        else:
            max_rows = self.max_rows

        max_bytes_scanned: int | None | Unset
        if isinstance(self.max_bytes_scanned, Unset):
            max_bytes_scanned = UNSET
        else:
            max_bytes_scanned = self.max_bytes_scanned

        wait_ms = self.wait_ms

        reveal = self.reveal

        request_id: None | str | Unset
        if isinstance(self.request_id, Unset):
            request_id = UNSET
        else:
            request_id = self.request_id

        use_query_cache = self.use_query_cache


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "tableId": table_id,
            "sql": sql,
        })
        if max_rows is not UNSET:
            field_dict["maxRows"] = max_rows
        if max_bytes_scanned is not UNSET:
            field_dict["maxBytesScanned"] = max_bytes_scanned
        if wait_ms is not UNSET:
            field_dict["waitMs"] = wait_ms
        if reveal is not UNSET:
            field_dict["reveal"] = reveal
        if request_id is not UNSET:
            field_dict["requestId"] = request_id
        if use_query_cache is not UNSET:
            field_dict["useQueryCache"] = use_query_cache

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        table_id = d.pop("tableId")

        sql = d.pop("sql")

        def _parse_max_rows(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_rows = _parse_max_rows(d.pop("maxRows", UNSET))


        def _parse_max_bytes_scanned(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_bytes_scanned = _parse_max_bytes_scanned(d.pop("maxBytesScanned", UNSET))


        wait_ms = d.pop("waitMs", UNSET)

        reveal = d.pop("reveal", UNSET)

        def _parse_request_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        request_id = _parse_request_id(d.pop("requestId", UNSET))


        use_query_cache = d.pop("useQueryCache", UNSET)

        query_request = cls(
            table_id=table_id,
            sql=sql,
            max_rows=max_rows,
            max_bytes_scanned=max_bytes_scanned,
            wait_ms=wait_ms,
            reveal=reveal,
            request_id=request_id,
            use_query_cache=use_query_cache,
        )

        return query_request

