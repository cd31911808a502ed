from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="TypedValue")



@_attrs_define
class TypedValue:
    """ A column value: ``columnType`` plus the one value field that matches it.

        Attributes:
            column_type (str):
            text_value (None | str | Unset):
            integer_value (int | None | str | Unset):
            float_value (float | None | str | Unset):
            boolean_value (bool | None | str | Unset):
            multi_select_value (list[str] | None | Unset):
            file_path (None | str | Unset):
            variable_value (None | str | Unset):
     """

    column_type: str
    text_value: None | str | Unset = UNSET
    integer_value: int | None | str | Unset = UNSET
    float_value: float | None | str | Unset = UNSET
    boolean_value: bool | None | str | Unset = UNSET
    multi_select_value: list[str] | None | Unset = UNSET
    file_path: None | str | Unset = UNSET
    variable_value: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        column_type = self.column_type

        text_value: None | str | Unset
        if isinstance(self.text_value, Unset):
            text_value = UNSET
        else:
            text_value = self.text_value

        integer_value: int | None | str | Unset
        if isinstance(self.integer_value, Unset):
            integer_value = UNSET
        else:
            integer_value = self.integer_value

        float_value: float | None | str | Unset
        if isinstance(self.float_value, Unset):
            float_value = UNSET
        else:
            float_value = self.float_value

        boolean_value: bool | None | str | Unset
        if isinstance(self.boolean_value, Unset):
            boolean_value = UNSET
        else:
            boolean_value = self.boolean_value

        multi_select_value: list[str] | None | Unset
        if isinstance(self.multi_select_value, Unset):
            multi_select_value = UNSET
        elif isinstance(self.multi_select_value, list):
            multi_select_value = self.multi_select_value


        else:
            multi_select_value = self.multi_select_value

        file_path: None | str | Unset
        if isinstance(self.file_path, Unset):
            file_path = UNSET
        else:
            file_path = self.file_path

        variable_value: None | str | Unset
        if isinstance(self.variable_value, Unset):
            variable_value = UNSET
        else:
            variable_value = self.variable_value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "columnType": column_type,
        })
        if text_value is not UNSET:
            field_dict["textValue"] = text_value
        if integer_value is not UNSET:
            field_dict["integerValue"] = integer_value
        if float_value is not UNSET:
            field_dict["floatValue"] = float_value
        if boolean_value is not UNSET:
            field_dict["booleanValue"] = boolean_value
        if multi_select_value is not UNSET:
            field_dict["multiSelectValue"] = multi_select_value
        if file_path is not UNSET:
            field_dict["filePath"] = file_path
        if variable_value is not UNSET:
            field_dict["variableValue"] = variable_value

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        column_type = d.pop("columnType")

        def _parse_text_value(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        text_value = _parse_text_value(d.pop("textValue", UNSET))


        def _parse_integer_value(data: object) -> int | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | str | Unset, data)

        integer_value = _parse_integer_value(d.pop("integerValue", UNSET))


        def _parse_float_value(data: object) -> float | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | str | Unset, data)

        float_value = _parse_float_value(d.pop("floatValue", UNSET))


        def _parse_boolean_value(data: object) -> bool | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | str | Unset, data)

        boolean_value = _parse_boolean_value(d.pop("booleanValue", UNSET))


        def _parse_multi_select_value(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                multi_select_value_type_0 = cast(list[str], data)

                return multi_select_value_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        multi_select_value = _parse_multi_select_value(d.pop("multiSelectValue", UNSET))


        def _parse_file_path(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        file_path = _parse_file_path(d.pop("filePath", UNSET))


        def _parse_variable_value(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        variable_value = _parse_variable_value(d.pop("variableValue", UNSET))


        typed_value = cls(
            column_type=column_type,
            text_value=text_value,
            integer_value=integer_value,
            float_value=float_value,
            boolean_value=boolean_value,
            multi_select_value=multi_select_value,
            file_path=file_path,
            variable_value=variable_value,
        )

        return typed_value

