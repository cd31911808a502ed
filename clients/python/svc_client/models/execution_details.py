from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ExecutionDetails")



@_attrs_define
class ExecutionDetails:
    """ 
        Attributes:
            webhook_name (str):
            http_method (str):
            source_ip (None | str):
            request_headers (str):
            request_payload (str):
            transform_type (str):
            transformed_variables (None | str):
            transform_error (None | str):
            resource_request_json (None | str):
            resource_response_json (None | str):
            error_message (None | str):
            request_query_params (None | str | Unset):
            request_payload_error (None | str | Unset):
            replay_of (None | str | Unset):
            trace_id (None | str | Unset):
     """

    webhook_name: str
    http_method: str
    source_ip: None | str
    request_headers: str
    request_payload: str
    transform_type: str
    transformed_variables: None | str
    transform_error: None | str
    resource_request_json: None | str
    resource_response_json: None | str
    error_message: None | str
    request_query_params: None | str | Unset = UNSET
    request_payload_error: None | str | Unset = UNSET
    replay_of: None | str | Unset = UNSET
    trace_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        webhook_name = self.webhook_name

        http_method = self.http_method

        source_ip: None | str
        source_ip = self.source_ip

        request_headers = self.request_headers

        request_payload = self.request_payload

        transform_type = self.transform_type

        transformed_variables: None | str
        transformed_variables = self.transformed_variables

        transform_error: None | str
        transform_error = self.transform_error

        resource_request_json: None | str
        resource_request_json = self.resource_request_json

        resource_response_json: None | str
        resource_response_json = self.resource_response_json

        error_message: None | str
        error_message = self.error_message

        request_query_params: None | str | Unset
        if isinstance(self.request_query_params, Unset):
            request_query_params = UNSET
        else:
            request_query_params = self.request_query_params

        request_payload_error: None | str | Unset
        if isinstance(self.request_payload_error, Unset):
            request_payload_error = UNSET
        else:
            request_payload_error = self.request_payload_error

        replay_of: None | str | Unset
        if isinstance(self.replay_of, Unset):
            replay_of = UNSET
        else:
            replay_of = self.replay_of

        trace_id: None | str | Unset
        if isinstance(self.trace_id, Unset):
            trace_id = UNSET
        else:
            trace_id = self.trace_id


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "webhookName": webhook_name,
            "httpMethod": http_method,
            "sourceIp": source_ip,
            "requestHeaders": request_headers,
            "requestPayload": request_payload,
            "transformType": transform_type,
            "transformedVariables": transformed_variables,
            "transformError": transform_error,
            "resourceRequestJson": resource_request_json,
            "resourceResponseJson": resource_response_json,
            "errorMessage": error_message,
        })
        if request_query_params is not UNSET:
            field_dict["requestQueryParams"] = request_query_params
        if request_payload_error is not UNSET:
            field_dict["requestPayloadError"] = request_payload_error
        if replay_of is not UNSET:
            field_dict["replayOf"] = replay_of
        if trace_id is not UNSET:
            field_dict["traceId"] = trace_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        webhook_name = d.pop("webhookName")

        http_method = d.pop("httpMethod")

        def _parse_source_ip(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        source_ip = _parse_source_ip(d.pop("sourceIp"))


        request_headers = d.pop("requestHeaders")

        request_payload = d.pop("requestPayload")

        transform_type = d.pop("transformType")

        def _parse_transformed_variables(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        transformed_variables = _parse_transformed_variables(d.pop("transformedVariables"))


        def _parse_transform_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        transform_error = _parse_transform_error(d.pop("transformError"))


        def _parse_resource_request_json(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        resource_request_json = _parse_resource_request_json(d.pop("resourceRequestJson"))


        def _parse_resource_response_json(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        resource_response_json = _parse_resource_response_json(d.pop("resourceResponseJson"))


        def _parse_error_message(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error_message = _parse_error_message(d.pop("errorMessage"))


        def _parse_request_query_params(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        request_query_params = _parse_request_query_params(d.pop("requestQueryParams", UNSET))


        def _parse_request_payload_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        request_payload_error = _parse_request_payload_error(d.pop("requestPayloadError", UNSET))


        def _parse_replay_of(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        replay_of = _parse_replay_of(d.pop("replayOf", UNSET))


        def _parse_trace_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        trace_id = _parse_trace_id(d.pop("traceId", UNSET))


        execution_details = cls(
            webhook_name=webhook_name,
            http_method=http_method,
            source_ip=source_ip,
            request_headers=request_headers,
            request_payload=request_payload,
            transform_type=transform_type,
            transformed_variables=transformed_variables,
            transform_error=transform_error,
            resource_request_json=resource_request_json,
            resource_response_json=resource_response_json,
            error_message=error_message,
            request_query_params=request_query_params,
            request_payload_error=request_payload_error,
            replay_of=replay_of,
            trace_id=trace_id,
        )


        execution_details.additional_properties = d
        return execution_details

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
