from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.svc_db_config_groups_logical_operator_type_0 import SvcDbConfigGroupsLogicalOperatorType0
from ..models.svc_db_config_operation import SvcDbConfigOperation
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.svc_db_config_values import SvcDbConfigValues
  from ..models.where_group import WhereGroup





T = TypeVar("T", bound="SvcDbConfig")



@_attrs_define
class SvcDbConfig:
    """ 
        Attributes:
            operation (SvcDbConfigOperation):
            values (SvcDbConfigValues):
            target_table_id (None | str | Unset):
            record_id (int | None | Unset):
            where_groups (list[WhereGroup] | None | Unset):
            groups_logical_operator (None | SvcDbConfigGroupsLogicalOperatorType0 | Unset):
            skip_if_target_table_missing (bool | Unset):  Default: False.
            description (None | str | Unset):
     """

    operation: SvcDbConfigOperation
    values: SvcDbConfigValues
    target_table_id: None | str | Unset = UNSET
    record_id: int | None | Unset = UNSET
    where_groups: list[WhereGroup] | None | Unset = UNSET
    groups_logical_operator: None | SvcDbConfigGroupsLogicalOperatorType0 | Unset = UNSET
    skip_if_target_table_missing: bool | Unset = False
    description: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.svc_db_config_values import SvcDbConfigValues # noqa: PLC0415
        from ..models.where_group import WhereGroup # noqa: PLC0415
        operation = self.operation.value

        values = self.values.to_dict()

        target_table_id: None | str | Unset
        if isinstance(self.target_table_id, Unset):
            target_table_id = UNSET
        else:
            target_table_id = self.target_table_id

        record_id: int | None | Unset
        if isinstance(self.record_id, Unset):
            record_id = UNSET
        else:
            record_id = self.record_id

        where_groups: list[dict[str, Any]] | None | Unset
        if isinstance(self.where_groups, Unset):
            where_groups = UNSET
        elif isinstance(self.where_groups, list):
            where_groups = []
            for where_groups_type_0_item_data in self.where_groups:
                where_groups_type_0_item = where_groups_type_0_item_data.to_dict()
                where_groups.append(where_groups_type_0_item)


        else:
            where_groups = self.where_groups

        groups_logical_operator: None | str | Unset
        if isinstance(self.groups_logical_operator, Unset):
            groups_logical_operator = UNSET
        elif isinstance(self.groups_logical_operator, SvcDbConfigGroupsLogicalOperatorType0):
            groups_logical_operator = self.groups_logical_operator.value
        else:
            groups_logical_operator = self.groups_logical_operator

        skip_if_target_table_missing = self.skip_if_target_table_missing

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "operation": operation,
            "values": values,
        })
        if target_table_id is not UNSET:
            field_dict["targetTableId"] = target_table_id
        if record_id is not UNSET:
            field_dict["recordId"] = record_id
        if where_groups is not UNSET:
            field_dict["whereGroups"] = where_groups
        if groups_logical_operator is not UNSET:
            field_dict["groupsLogicalOperator"] = groups_logical_operator
        if skip_if_target_table_missing is not UNSET:
            field_dict["skipIfTargetTableMissing"] = skip_if_target_table_missing
        if description is not UNSET:
            field_dict["description"] = description

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.svc_db_config_values import SvcDbConfigValues # noqa: PLC0415
        from ..models.where_group import WhereGroup # noqa: PLC0415
        d = dict(src_dict)
        operation = SvcDbConfigOperation(d.pop("operation"))




        values = SvcDbConfigValues.from_dict(d.pop("values"))




        def _parse_target_table_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        target_table_id = _parse_target_table_id(d.pop("targetTableId", UNSET))


        def _parse_record_id(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        record_id = _parse_record_id(d.pop("recordId", UNSET))


        def _parse_where_groups(data: object) -> list[WhereGroup] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                where_groups_type_0 = []
                _where_groups_type_0 = data
                for where_groups_type_0_item_data in (_where_groups_type_0):
                    where_groups_type_0_item = WhereGroup.from_dict(where_groups_type_0_item_data)



                    where_groups_type_0.append(where_groups_type_0_item)

                return where_groups_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[WhereGroup] | None | Unset, data)

        where_groups = _parse_where_groups(d.pop("whereGroups", UNSET))


        def _parse_groups_logical_operator(data: object) -> None | SvcDbConfigGroupsLogicalOperatorType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                groups_logical_operator_type_0 = SvcDbConfigGroupsLogicalOperatorType0(data)



                return groups_logical_operator_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SvcDbConfigGroupsLogicalOperatorType0 | Unset, data)

        groups_logical_operator = _parse_groups_logical_operator(d.pop("groupsLogicalOperator", UNSET))


        skip_if_target_table_missing = d.pop("skipIfTargetTableMissing", UNSET)

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


        svc_db_config = cls(
            operation=operation,
            values=values,
            target_table_id=target_table_id,
            record_id=record_id,
            where_groups=where_groups,
            groups_logical_operator=groups_logical_operator,
            skip_if_target_table_missing=skip_if_target_table_missing,
            description=description,
        )

        return svc_db_config

