"""The console's share form (ingress/console/sharing.py): a sharing level, the company's access level, and
members to add or remove, one a line; it turns into the body of ``/share``, which checks it again."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from schemas.console import _blank_is_none, _Form
from schemas.enums import AccessLevel
from schemas.webhooks import SharingLevel

MAX_MEMBER_LINES = 500


def _member(name: str) -> dict[str, str]:
    """A member named by email (it holds an ``@``) or by user id."""
    return {"userEmail": name} if "@" in name else {"userId": name}


def parse_members_to_add(text: str) -> list[dict[str, str]]:
    """``email-or-id LEVEL`` lines (blank lines ignored; the level READ when left out); ValueError names the
    line."""
    found: list[dict[str, str]] = []
    levels = {level.value for level in AccessLevel}
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.split()
        if not words:
            continue
        if len(words) > 2 or (len(words) == 2 and words[1].upper() not in levels):
            raise ValueError(
                f"members to add, line {number}: write a member as email-or-id READ|WRITE|PUBLISH|ADMIN"
            )
        found.append({**_member(words[0]), "accessLevel": words[1].upper() if len(words) == 2 else "READ"})
    if len(found) > MAX_MEMBER_LINES:
        raise ValueError(f"members to add: at most {MAX_MEMBER_LINES}")
    return found


def parse_members_to_remove(text: str) -> list[dict[str, str]]:
    """One email or user id a line (blank lines ignored); ValueError names the line."""
    found: list[dict[str, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.split()
        if not words:
            continue
        if len(words) > 1:
            raise ValueError(f"members to remove, line {number}: write one email or user id a line")
        found.append(_member(words[0]))
    if len(found) > MAX_MEMBER_LINES:
        raise ValueError(f"members to remove: at most {MAX_MEMBER_LINES}")
    return found


class ShareForm(_Form):
    level: SharingLevel = SharingLevel.PRIVATE
    access_level: AccessLevel | None = None
    add: str = Field("", max_length=100_000)
    remove: str = Field("", max_length=100_000)

    _blank = field_validator("access_level", mode="before")(_blank_is_none)

    @classmethod
    def shown(cls, webhook: dict[str, Any]) -> dict[str, str]:
        """The form's fields for a webhook as ``/get`` answers it: its level and company level, no members."""
        return {
            "level": str(webhook.get("sharingLevel") or SharingLevel.PRIVATE.value),
            "access_level": str(webhook.get("companyPermissionLevel") or ""),
            "add": "",
            "remove": "",
        }

    def request_body(self, webhook_id: str) -> dict[str, Any]:
        """The ``/share`` body; the company level is sent only with COMPANY (the API requires it there)."""
        body: dict[str, Any] = {"webhookId": webhook_id, "level": self.level.value}
        if self.level is SharingLevel.COMPANY and self.access_level is not None:
            body["accessLevel"] = self.access_level.value
        add, remove = parse_members_to_add(self.add), parse_members_to_remove(self.remove)
        if add:
            body["usersToAdd"] = add
        if remove:
            body["usersToRemove"] = remove
        return body
