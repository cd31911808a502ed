from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.join import Join
  from ..models.measure import Measure
  from ..models.update_semantics_request_column_descriptions_type_0 import UpdateSemanticsRequestColumnDescriptionsType0
  from ..models.update_semantics_request_column_synonyms_type_0 import UpdateSemanticsRequestColumnSynonymsType0
  from ..models.verified_query import VerifiedQuery





T = TypeVar("T", bound="UpdateSemanticsRequest")



@_attrs_define
class UpdateSemanticsRequest:
    """ 
        Attributes:
            table_id (str):
            expected_version (int):
            name (None | str | Unset):
            description (None | str | Unset):
            grain (None | str | Unset):
            column_descriptions (None | Unset | UpdateSemanticsRequestColumnDescriptionsType0):
            column_synonyms (None | Unset | UpdateSemanticsRequestColumnSynonymsType0):
            measures (list[Measure] | None | Unset):
            joins (list[Join] | None | Unset):
            verified_queries (list[VerifiedQuery] | None | Unset):
     """

    table_id: str
    expected_version: int
    name: None | str | Unset = UNSET
    description: None | str | Unset = UNSET
    grain: None | str | Unset = UNSET
    column_descriptions: None | Unset | UpdateSemanticsRequestColumnDescriptionsType0 = UNSET
    column_synonyms: None | Unset | UpdateSemanticsRequestColumnSynonymsType0 = UNSET
    measures: list[Measure] | None | Unset = UNSET
    joins: list[Join] | None | Unset = UNSET
    verified_queries: list[VerifiedQuery] | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.join import Join # noqa: PLC0415
        from ..models.measure import Measure # noqa: PLC0415
        from ..models.update_semantics_request_column_descriptions_type_0 import UpdateSemanticsRequestColumnDescriptionsType0 # noqa: PLC0415
        from ..models.update_semantics_request_column_synonyms_type_0 import UpdateSemanticsRequestColumnSynonymsType0 # noqa: PLC0415
        from ..models.verified_query import VerifiedQuery # noqa: PLC0415
        table_id = self.table_id

        expected_version = self.expected_version

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

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

        column_descriptions: dict[str, Any] | None | Unset
        if isinstance(self.column_descriptions, Unset):
            column_descriptions = UNSET
        elif isinstance(self.column_descriptions, UpdateSemanticsRequestColumnDescriptionsType0):
            column_descriptions = self.column_descriptions.to_dict()
        else:
            column_descriptions = self.column_descriptions

        column_synonyms: dict[str, Any] | None | Unset
        if isinstance(self.column_synonyms, Unset):
            column_synonyms = UNSET
        elif isinstance(self.column_synonyms, UpdateSemanticsRequestColumnSynonymsType0):
            column_synonyms = self.column_synonyms.to_dict()
        else:
            column_synonyms = self.column_synonyms

        measures: list[dict[str, Any]] | None | Unset
        if isinstance(self.measures, Unset):
            measures = UNSET
        elif isinstance(self.measures, list):
            measures = []
            for measures_type_0_item_data in self.measures:
                measures_type_0_item = measures_type_0_item_data.to_dict()
                measures.append(measures_type_0_item)


        else:
            measures = self.measures

        joins: list[dict[str, Any]] | None | Unset
        if isinstance(self.joins, Unset):
            joins = UNSET
        elif isinstance(self.joins, list):
            joins = []
            for joins_type_0_item_data in self.joins:
                joins_type_0_item = joins_type_0_item_data.to_dict()
                joins.append(joins_type_0_item)


        else:
            joins = self.joins

        verified_queries: list[dict[str, Any]] | None | Unset
        if isinstance(self.verified_queries, Unset):
            verified_queries = UNSET
        elif isinstance(self.verified_queries, list):
            verified_queries = []
            for verified_queries_type_0_item_data in self.verified_queries:
                verified_queries_type_0_item = verified_queries_type_0_item_data.to_dict()
                verified_queries.append(verified_queries_type_0_item)


        else:
            verified_queries = self.verified_queries


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "tableId": table_id,
            "expectedVersion": expected_version,
        })
        if name is not UNSET:
            field_dict["name"] = name
        if description is not UNSET:
            field_dict["description"] = description
        if grain is not UNSET:
            field_dict["grain"] = grain
        if column_descriptions is not UNSET:
            field_dict["columnDescriptions"] = column_descriptions
        if column_synonyms is not UNSET:
            field_dict["columnSynonyms"] = column_synonyms
        if measures is not UNSET:
            field_dict["measures"] = measures
        if joins is not UNSET:
            field_dict["joins"] = joins
        if verified_queries is not UNSET:
            field_dict["verifiedQueries"] = verified_queries

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.join import Join # noqa: PLC0415
        from ..models.measure import Measure # noqa: PLC0415
        from ..models.update_semantics_request_column_descriptions_type_0 import UpdateSemanticsRequestColumnDescriptionsType0 # noqa: PLC0415
        from ..models.update_semantics_request_column_synonyms_type_0 import UpdateSemanticsRequestColumnSynonymsType0 # noqa: PLC0415
        from ..models.verified_query import VerifiedQuery # noqa: PLC0415
        d = dict(src_dict)
        table_id = d.pop("tableId")

        expected_version = d.pop("expectedVersion")

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))


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


        def _parse_column_descriptions(data: object) -> None | Unset | UpdateSemanticsRequestColumnDescriptionsType0:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                column_descriptions_type_0 = UpdateSemanticsRequestColumnDescriptionsType0.from_dict(data)



                return column_descriptions_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UpdateSemanticsRequestColumnDescriptionsType0, data)

        column_descriptions = _parse_column_descriptions(d.pop("columnDescriptions", UNSET))


        def _parse_column_synonyms(data: object) -> None | Unset | UpdateSemanticsRequestColumnSynonymsType0:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                column_synonyms_type_0 = UpdateSemanticsRequestColumnSynonymsType0.from_dict(data)



                return column_synonyms_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UpdateSemanticsRequestColumnSynonymsType0, data)

        column_synonyms = _parse_column_synonyms(d.pop("columnSynonyms", UNSET))


        def _parse_measures(data: object) -> list[Measure] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                measures_type_0 = []
                _measures_type_0 = data
                for measures_type_0_item_data in (_measures_type_0):
                    measures_type_0_item = Measure.from_dict(measures_type_0_item_data)



                    measures_type_0.append(measures_type_0_item)

                return measures_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Measure] | None | Unset, data)

        measures = _parse_measures(d.pop("measures", UNSET))


        def _parse_joins(data: object) -> list[Join] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                joins_type_0 = []
                _joins_type_0 = data
                for joins_type_0_item_data in (_joins_type_0):
                    joins_type_0_item = Join.from_dict(joins_type_0_item_data)



                    joins_type_0.append(joins_type_0_item)

                return joins_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Join] | None | Unset, data)

        joins = _parse_joins(d.pop("joins", UNSET))


        def _parse_verified_queries(data: object) -> list[VerifiedQuery] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                verified_queries_type_0 = []
                _verified_queries_type_0 = data
                for verified_queries_type_0_item_data in (_verified_queries_type_0):
                    verified_queries_type_0_item = VerifiedQuery.from_dict(verified_queries_type_0_item_data)



                    verified_queries_type_0.append(verified_queries_type_0_item)

                return verified_queries_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[VerifiedQuery] | None | Unset, data)

        verified_queries = _parse_verified_queries(d.pop("verifiedQueries", UNSET))


        update_semantics_request = cls(
            table_id=table_id,
            expected_version=expected_version,
            name=name,
            description=description,
            grain=grain,
            column_descriptions=column_descriptions,
            column_synonyms=column_synonyms,
            measures=measures,
            joins=joins,
            verified_queries=verified_queries,
        )

        return update_semantics_request

