from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="RetryPolicy")



@_attrs_define
class RetryPolicy:
    """ Sent whole: a retryPolicy on /update replaces the stored one, a field left out takes its default.

        Attributes:
            maximum_retry_attempts (int | Unset):  Default: 0.
            maximum_event_age_in_seconds (int | Unset):  Default: 86400.
     """

    maximum_retry_attempts: int | Unset = 0
    maximum_event_age_in_seconds: int | Unset = 86400





    def to_dict(self) -> dict[str, Any]:
        maximum_retry_attempts = self.maximum_retry_attempts

        maximum_event_age_in_seconds = self.maximum_event_age_in_seconds


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if maximum_retry_attempts is not UNSET:
            field_dict["maximumRetryAttempts"] = maximum_retry_attempts
        if maximum_event_age_in_seconds is not UNSET:
            field_dict["maximumEventAgeInSeconds"] = maximum_event_age_in_seconds

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        maximum_retry_attempts = d.pop("maximumRetryAttempts", UNSET)

        maximum_event_age_in_seconds = d.pop("maximumEventAgeInSeconds", UNSET)

        retry_policy = cls(
            maximum_retry_attempts=maximum_retry_attempts,
            maximum_event_age_in_seconds=maximum_event_age_in_seconds,
        )

        return retry_policy

