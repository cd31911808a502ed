from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.transform_trial_answer_variables_type_0 import TransformTrialAnswerVariablesType0





T = TypeVar("T", bound="TransformTrialAnswer")



@_attrs_define
class TransformTrialAnswer:
    """ 
        Attributes:
            transform_type (str): JSONPATH or SVC_SCRIPT
            validated (bool): False when the validation script refused the sample
            validation_message (None | str | Unset): The validation script's refusal
            filtered (bool | Unset): The content filter dropped the sample: no transform ran Default: False.
            filter_note (None | str | Unset):
            variables (None | TransformTrialAnswerVariablesType0 | Unset): The variables the transform made
            transform_error (None | str | Unset): Why the transform failed, as a delivery records it
            duration_ms (float | None | Unset): How long the transform took
            errors (list[str] | Unset):
     """

    transform_type: str
    validated: bool
    validation_message: None | str | Unset = UNSET
    filtered: bool | Unset = False
    filter_note: None | str | Unset = UNSET
    variables: None | TransformTrialAnswerVariablesType0 | Unset = UNSET
    transform_error: None | str | Unset = UNSET
    duration_ms: float | None | Unset = UNSET
    errors: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.transform_trial_answer_variables_type_0 import TransformTrialAnswerVariablesType0 # noqa: PLC0415
        transform_type = self.transform_type

        validated = self.validated

        validation_message: None | str | Unset
        if isinstance(self.validation_message, Unset):
            validation_message = UNSET
        else:
            validation_message = self.validation_message

        filtered = self.filtered

        filter_note: None | str | Unset
        if isinstance(self.filter_note, Unset):
            filter_note = UNSET
        else:
            filter_note = self.filter_note

        variables: dict[str, Any] | None | Unset
        if isinstance(self.variables, Unset):
            variables = UNSET
        elif isinstance(self.variables, TransformTrialAnswerVariablesType0):
            variables = self.variables.to_dict()
        else:
            variables = self.variables

        transform_error: None | str | Unset
        if isinstance(self.transform_error, Unset):
            transform_error = UNSET
        else:
            transform_error = self.transform_error

        duration_ms: float | None | Unset
        if isinstance(self.duration_ms, Unset):
            duration_ms = UNSET
        else:
            duration_ms = self.duration_ms

        errors: list[str] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = self.errors




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "transformType": transform_type,
            "validated": validated,
        })
        if validation_message is not UNSET:
            field_dict["validationMessage"] = validation_message
        if filtered is not UNSET:
            field_dict["filtered"] = filtered
        if filter_note is not UNSET:
            field_dict["filterNote"] = filter_note
        if variables is not UNSET:
            field_dict["variables"] = variables
        if transform_error is not UNSET:
            field_dict["transformError"] = transform_error
        if duration_ms is not UNSET:
            field_dict["durationMs"] = duration_ms
        if errors is not UNSET:
            field_dict["errors"] = errors

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.transform_trial_answer_variables_type_0 import TransformTrialAnswerVariablesType0 # noqa: PLC0415
        d = dict(src_dict)
        transform_type = d.pop("transformType")

        validated = d.pop("validated")

        def _parse_validation_message(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        validation_message = _parse_validation_message(d.pop("validationMessage", UNSET))


        filtered = d.pop("filtered", UNSET)

        def _parse_filter_note(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        filter_note = _parse_filter_note(d.pop("filterNote", UNSET))


        def _parse_variables(data: object) -> None | TransformTrialAnswerVariablesType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                variables_type_0 = TransformTrialAnswerVariablesType0.from_dict(data)



                return variables_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TransformTrialAnswerVariablesType0 | Unset, data)

        variables = _parse_variables(d.pop("variables", UNSET))


        def _parse_transform_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        transform_error = _parse_transform_error(d.pop("transformError", UNSET))


        def _parse_duration_ms(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        duration_ms = _parse_duration_ms(d.pop("durationMs", UNSET))


        errors = cast(list[str], d.pop("errors", UNSET))


        transform_trial_answer = cls(
            transform_type=transform_type,
            validated=validated,
            validation_message=validation_message,
            filtered=filtered,
            filter_note=filter_note,
            variables=variables,
            transform_error=transform_error,
            duration_ms=duration_ms,
            errors=errors,
        )


        transform_trial_answer.additional_properties = d
        return transform_trial_answer

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
