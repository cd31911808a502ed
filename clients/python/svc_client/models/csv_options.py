from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="CsvOptions")



@_attrs_define
class CsvOptions:
    """ 
        Attributes:
            delimiter (str | Unset):  Default: ','.
            header (bool | Unset):  Default: True.
            null_string (None | str | Unset):
            quote (str | Unset):  Default: '\\\\"'.
            date_format (None | str | Unset):
            timestamp_format (None | str | Unset):
     """

    delimiter: str | Unset = ','
    header: bool | Unset = True
    null_string: None | str | Unset = UNSET
    quote: str | Unset = '\\"'
    date_format: None | str | Unset = UNSET
    timestamp_format: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        delimiter = self.delimiter

        header = self.header

        null_string: None | str | Unset
        if isinstance(self.null_string, Unset):
            null_string = UNSET
        else:
            null_string = self.null_string

        quote = self.quote

        date_format: None | str | Unset
        if isinstance(self.date_format, Unset):
            date_format = UNSET
        else:
            date_format = self.date_format

        timestamp_format: None | str | Unset
        if isinstance(self.timestamp_format, Unset):
            timestamp_format = UNSET
        else:
            timestamp_format = self.timestamp_format


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if delimiter is not UNSET:
            field_dict["delimiter"] = delimiter
        if header is not UNSET:
            field_dict["header"] = header
        if null_string is not UNSET:
            field_dict["nullString"] = null_string
        if quote is not UNSET:
            field_dict["quote"] = quote
        if date_format is not UNSET:
            field_dict["dateFormat"] = date_format
        if timestamp_format is not UNSET:
            field_dict["timestampFormat"] = timestamp_format

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        delimiter = d.pop("delimiter", UNSET)

        header = d.pop("header", UNSET)

        def _parse_null_string(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        null_string = _parse_null_string(d.pop("nullString", UNSET))


        quote = d.pop("quote", UNSET)

        def _parse_date_format(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        date_format = _parse_date_format(d.pop("dateFormat", UNSET))


        def _parse_timestamp_format(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        timestamp_format = _parse_timestamp_format(d.pop("timestampFormat", UNSET))


        csv_options = cls(
            delimiter=delimiter,
            header=header,
            null_string=null_string,
            quote=quote,
            date_format=date_format,
            timestamp_format=timestamp_format,
        )

        return csv_options

