from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="JobResultsRequest")



@_attrs_define
class JobResultsRequest:
    """ 
        Attributes:
            table_id (str):
            job_id (str):
            page (int | Unset):  Default: 0.
            page_size (int | Unset): Rows per page, 1 to 1000 (default 1000); more than 1000 answers 413 ROW_LIMIT Default:
                1000.
            reveal (bool | Unset):  Default: False.
            reveal_row (int | None | Unset): 0-based row of the whole result whose revealColumn cell to reveal; sent with
                revealColumn, and below totalRows (else 400 INVALID_REQUEST)
            reveal_column (None | str | Unset): The result column of the cell to reveal, with revealRow
     """

    table_id: str
    job_id: str
    page: int | Unset = 0
    page_size: int | Unset = 1000
    reveal: bool | Unset = False
    reveal_row: int | None | Unset = UNSET
    reveal_column: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        table_id = self.table_id

        job_id = self.job_id

        page = self.page

        page_size = self.page_size

        reveal = self.reveal

        reveal_row: int | None | Unset
        if isinstance(self.reveal_row, Unset):
            reveal_row = UNSET
        else:
            reveal_row = self.reveal_row

        reveal_column: None | str | Unset
        if isinstance(self.reveal_column, Unset):
            reveal_column = UNSET
        else:
            reveal_column = self.reveal_column


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "tableId": table_id,
            "jobId": job_id,
        })
        if page is not UNSET:
            field_dict["page"] = page
        if page_size is not UNSET:
            field_dict["pageSize"] = page_size
        if reveal is not UNSET:
            field_dict["reveal"] = reveal
        if reveal_row is not UNSET:
            field_dict["revealRow"] = reveal_row
        if reveal_column is not UNSET:
            field_dict["revealColumn"] = reveal_column

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        table_id = d.pop("tableId")

        job_id = d.pop("jobId")

        page = d.pop("page", UNSET)

        page_size = d.pop("pageSize", UNSET)

        reveal = d.pop("reveal", UNSET)

        def _parse_reveal_row(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        reveal_row = _parse_reveal_row(d.pop("revealRow", UNSET))


        def _parse_reveal_column(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reveal_column = _parse_reveal_column(d.pop("revealColumn", UNSET))


        job_results_request = cls(
            table_id=table_id,
            job_id=job_id,
            page=page,
            page_size=page_size,
            reveal=reveal,
            reveal_row=reveal_row,
            reveal_column=reveal_column,
        )

        return job_results_request

