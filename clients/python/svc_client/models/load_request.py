from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.load_request_format_type_0 import LoadRequestFormatType0
from ..models.load_request_mode import LoadRequestMode
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.csv_options import CsvOptions
  from ..models.load_request_column_mapping_type_0 import LoadRequestColumnMappingType0





T = TypeVar("T", bound="LoadRequest")



@_attrs_define
class LoadRequest:
    """ 
        Attributes:
            table_id (str):
            source_uris (list[str]):
            format_ (LoadRequestFormatType0 | None | Unset):
            mode (LoadRequestMode | Unset):  Default: LoadRequestMode.APPEND.
            csv (CsvOptions | Unset):
            column_mapping (LoadRequestColumnMappingType0 | None | Unset):
     """

    table_id: str
    source_uris: list[str]
    format_: LoadRequestFormatType0 | None | Unset = UNSET
    mode: LoadRequestMode | Unset = LoadRequestMode.APPEND
    csv: CsvOptions | Unset = UNSET
    column_mapping: LoadRequestColumnMappingType0 | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.csv_options import CsvOptions # noqa: PLC0415
        from ..models.load_request_column_mapping_type_0 import LoadRequestColumnMappingType0 # noqa: PLC0415
        table_id = self.table_id

        source_uris = self.source_uris



        format_: None | str | Unset
        if isinstance(self.format_, Unset):
            format_ = UNSET
        elif isinstance(self.format_, LoadRequestFormatType0):
            format_ = self.format_.value
        else:
            format_ = self.format_

        mode: str | Unset = UNSET
        if not isinstance(self.mode, Unset):
            mode = self.mode.value


        csv: dict[str, Any] | Unset = UNSET
        if not isinstance(self.csv, Unset):
            csv = self.csv.to_dict()

        column_mapping: dict[str, Any] | None | Unset
        if isinstance(self.column_mapping, Unset):
            column_mapping = UNSET
        elif isinstance(self.column_mapping, LoadRequestColumnMappingType0):
            column_mapping = self.column_mapping.to_dict()
        else:
            column_mapping = self.column_mapping


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "tableId": table_id,
            "sourceUris": source_uris,
        })
        if format_ is not UNSET:
            field_dict["format"] = format_
        if mode is not UNSET:
            field_dict["mode"] = mode
        if csv is not UNSET:
            field_dict["csv"] = csv
        if column_mapping is not UNSET:
            field_dict["columnMapping"] = column_mapping

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.csv_options import CsvOptions # noqa: PLC0415
        from ..models.load_request_column_mapping_type_0 import LoadRequestColumnMappingType0 # noqa: PLC0415
        d = dict(src_dict)
        table_id = d.pop("tableId")

        source_uris = cast(list[str], d.pop("sourceUris"))


        def _parse_format_(data: object) -> LoadRequestFormatType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                format_type_0 = LoadRequestFormatType0(data)



                return format_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LoadRequestFormatType0 | None | Unset, data)

        format_ = _parse_format_(d.pop("format", UNSET))


        _mode = d.pop("mode", UNSET)
        mode: LoadRequestMode | Unset
        if isinstance(_mode,  Unset):
            mode = UNSET
        else:
            mode = LoadRequestMode(_mode)




        _csv = d.pop("csv", UNSET)
        csv: CsvOptions | Unset
        if isinstance(_csv,  Unset):
            csv = UNSET
        else:
            csv = CsvOptions.from_dict(_csv)




        def _parse_column_mapping(data: object) -> LoadRequestColumnMappingType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                column_mapping_type_0 = LoadRequestColumnMappingType0.from_dict(data)



                return column_mapping_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LoadRequestColumnMappingType0 | None | Unset, data)

        column_mapping = _parse_column_mapping(d.pop("columnMapping", UNSET))


        load_request = cls(
            table_id=table_id,
            source_uris=source_uris,
            format_=format_,
            mode=mode,
            csv=csv,
            column_mapping=column_mapping,
        )

        return load_request

