from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.column_spec import ColumnSpec
  from ..models.join import Join
  from ..models.measure import Measure
  from ..models.partition_field import PartitionField
  from ..models.verified_query import VerifiedQuery





T = TypeVar("T", bound="CreateTableRequest")



@_attrs_define
class CreateTableRequest:
    """ 
        Attributes:
            sql_name (str):
            name (str):
            columns (list[ColumnSpec]):
            description (None | str | Unset):
            grain (None | str | Unset):
            partition_spec (list[PartitionField] | Unset):
            measures (list[Measure] | Unset):
            joins (list[Join] | Unset):
            verified_queries (list[VerifiedQuery] | Unset):
     """

    sql_name: str
    name: str
    columns: list[ColumnSpec]
    description: None | str | Unset = UNSET
    grain: None | str | Unset = UNSET
    partition_spec: list[PartitionField] | Unset = UNSET
    measures: list[Measure] | Unset = UNSET
    joins: list[Join] | Unset = UNSET
    verified_queries: list[VerifiedQuery] | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.column_spec import ColumnSpec # noqa: PLC0415
        from ..models.join import Join # noqa: PLC0415
        from ..models.measure import Measure # noqa: PLC0415
        from ..models.partition_field import PartitionField # noqa: PLC0415
        from ..models.verified_query import VerifiedQuery # noqa: PLC0415
        sql_name = self.sql_name

        name = self.name

        columns = []
        for columns_item_data in self.columns:
            columns_item = columns_item_data.to_dict()
            columns.append(columns_item)



        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        grain: None | str | Unset
        if isinstance(self.grain, Unset):
            grain = UNSET
        else:
            grain = self.grain

        partition_spec: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.partition_spec, Unset):
            partition_spec = []
            for partition_spec_item_data in self.partition_spec:
                partition_spec_item = partition_spec_item_data.to_dict()
                partition_spec.append(partition_spec_item)



        measures: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.measures, Unset):
            measures = []
            for measures_item_data in self.measures:
                measures_item = measures_item_data.to_dict()
                measures.append(measures_item)



        joins: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.joins, Unset):
            joins = []
            for joins_item_data in self.joins:
                joins_item = joins_item_data.to_dict()
                joins.append(joins_item)



        verified_queries: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.verified_queries, Unset):
            verified_queries = []
            for verified_queries_item_data in self.verified_queries:
                verified_queries_item = verified_queries_item_data.to_dict()
                verified_queries.append(verified_queries_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "sqlName": sql_name,
            "name": name,
            "columns": columns,
        })
        if description is not UNSET:
            field_dict["description"] = description
        if grain is not UNSET:
            field_dict["grain"] = grain
        if partition_spec is not UNSET:
            field_dict["partitionSpec"] = partition_spec
        if measures is not UNSET:
            field_dict["measures"] = measures
        if joins is not UNSET:
            field_dict["joins"] = joins
        if verified_queries is not UNSET:
            field_dict["verifiedQueries"] = verified_queries

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.column_spec import ColumnSpec # noqa: PLC0415
        from ..models.join import Join # noqa: PLC0415
        from ..models.measure import Measure # noqa: PLC0415
        from ..models.partition_field import PartitionField # noqa: PLC0415
        from ..models.verified_query import VerifiedQuery # noqa: PLC0415
        d = dict(src_dict)
        sql_name = d.pop("sqlName")

        name = d.pop("name")

        columns = []
        _columns = d.pop("columns")
        for columns_item_data in (_columns):
            columns_item = ColumnSpec.from_dict(columns_item_data)



            columns.append(columns_item)


        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


        def _parse_grain(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        grain = _parse_grain(d.pop("grain", UNSET))


        _partition_spec = d.pop("partitionSpec", UNSET)
        partition_spec: list[PartitionField] | Unset = UNSET
        if _partition_spec is not UNSET:
            partition_spec = []
            for partition_spec_item_data in _partition_spec:
                partition_spec_item = PartitionField.from_dict(partition_spec_item_data)



                partition_spec.append(partition_spec_item)


        _measures = d.pop("measures", UNSET)
        measures: list[Measure] | Unset = UNSET
        if _measures is not UNSET:
            measures = []
            for measures_item_data in _measures:
                measures_item = Measure.from_dict(measures_item_data)



                measures.append(measures_item)


        _joins = d.pop("joins", UNSET)
        joins: list[Join] | Unset = UNSET
        if _joins is not UNSET:
            joins = []
            for joins_item_data in _joins:
                joins_item = Join.from_dict(joins_item_data)



                joins.append(joins_item)


        _verified_queries = d.pop("verifiedQueries", UNSET)
        verified_queries: list[VerifiedQuery] | Unset = UNSET
        if _verified_queries is not UNSET:
            verified_queries = []
            for verified_queries_item_data in _verified_queries:
                verified_queries_item = VerifiedQuery.from_dict(verified_queries_item_data)



                verified_queries.append(verified_queries_item)


        create_table_request = cls(
            sql_name=sql_name,
            name=name,
            columns=columns,
            description=description,
            grain=grain,
            partition_spec=partition_spec,
            measures=measures,
            joins=joins,
            verified_queries=verified_queries,
        )

        return create_table_request

