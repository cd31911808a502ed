from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.access_level import AccessLevel
from ..models.sharing_level import SharingLevel
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.direct_share_entry import DirectShareEntry





T = TypeVar("T", bound="SharesAnswer")



@_attrs_define
class SharesAnswer:
    """ ``/get-shares`` (svc's addition): the webhook's sharing and every member shared with it directly.

        Attributes:
            sharing_level (SharingLevel):
            direct_shares (list[DirectShareEntry]):
            company_permission_level (AccessLevel | None | Unset):
            errors (list[str] | Unset):
     """

    sharing_level: SharingLevel
    direct_shares: list[DirectShareEntry]
    company_permission_level: AccessLevel | None | Unset = UNSET
    errors: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.direct_share_entry import DirectShareEntry # noqa: PLC0415
        sharing_level = self.sharing_level.value

        direct_shares = []
        for direct_shares_item_data in self.direct_shares:
            direct_shares_item = direct_shares_item_data.to_dict()
            direct_shares.append(direct_shares_item)



        company_permission_level: None | str | Unset
        if isinstance(self.company_permission_level, Unset):
            company_permission_level = UNSET
        elif isinstance(self.company_permission_level, AccessLevel):
            company_permission_level = self.company_permission_level.value
        else:
            company_permission_level = self.company_permission_level

        errors: list[str] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = self.errors




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "sharingLevel": sharing_level,
            "directShares": direct_shares,
        })
        if company_permission_level is not UNSET:
            field_dict["companyPermissionLevel"] = company_permission_level
        if errors is not UNSET:
            field_dict["errors"] = errors

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.direct_share_entry import DirectShareEntry # noqa: PLC0415
        d = dict(src_dict)
        sharing_level = SharingLevel(d.pop("sharingLevel"))




        direct_shares = []
        _direct_shares = d.pop("directShares")
        for direct_shares_item_data in (_direct_shares):
            direct_shares_item = DirectShareEntry.from_dict(direct_shares_item_data)



            direct_shares.append(direct_shares_item)


        def _parse_company_permission_level(data: object) -> AccessLevel | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                company_permission_level_type_0 = AccessLevel(data)



                return company_permission_level_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AccessLevel | None | Unset, data)

        company_permission_level = _parse_company_permission_level(d.pop("companyPermissionLevel", UNSET))


        errors = cast(list[str], d.pop("errors", UNSET))


        shares_answer = cls(
            sharing_level=sharing_level,
            direct_shares=direct_shares,
            company_permission_level=company_permission_level,
            errors=errors,
        )


        shares_answer.additional_properties = d
        return shares_answer

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
