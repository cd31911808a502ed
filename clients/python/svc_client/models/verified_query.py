from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="VerifiedQuery")



@_attrs_define
class VerifiedQuery:
    """ 
        Attributes:
            question (str):
            sql (str):
            id (None | str | Unset):
     """

    question: str
    sql: str
    id: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        question = self.question

        sql = self.sql

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "question": question,
            "sql": sql,
        })
        if id is not UNSET:
            field_dict["id"] = id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        question = d.pop("question")

        sql = d.pop("sql")

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))


        verified_query = cls(
            question=question,
            sql=sql,
            id=id,
        )

        return verified_query

