"""The console's share form: the ``/share`` body it sends and the fields it shows, without I/O."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from schemas.console_sharing import ShareForm, parse_members_to_add, parse_members_to_remove

pytestmark = pytest.mark.unit


def test_a_share_form_shows_the_webhooks_level_and_sends_members_by_email_or_id() -> None:
    shown = ShareForm.shown({"sharingLevel": "COMPANY", "companyPermissionLevel": "WRITE"})
    assert shown == {"level": "COMPANY", "access_level": "WRITE", "add": "", "remove": ""}
    assert ShareForm.shown({})["level"] == "PRIVATE"
    body = ShareForm.model_validate(
        {"level": "SPECIFIC_MEMBER", "access_level": "", "add": "a@x.test write\n\nu42", "remove": "b@x.test"}
    ).request_body("w1")
    assert body == {
        "webhookId": "w1",
        "level": "SPECIFIC_MEMBER",
        "usersToAdd": [
            {"userEmail": "a@x.test", "accessLevel": "WRITE"},
            {"userId": "u42", "accessLevel": "READ"},
        ],
        "usersToRemove": [{"userEmail": "b@x.test"}],
    }


def test_the_company_level_goes_only_with_company_and_a_bad_line_is_named() -> None:
    company = ShareForm.model_validate({"level": "COMPANY", "access_level": "READ"}).request_body("w1")
    assert company == {"webhookId": "w1", "level": "COMPANY", "accessLevel": "READ"}
    private = ShareForm.model_validate({"level": "PRIVATE", "access_level": "READ"}).request_body("w1")
    assert private == {"webhookId": "w1", "level": "PRIVATE"}
    with pytest.raises(ValueError, match="members to add, line 2"):
        parse_members_to_add("a@x.test\nb@x.test OWNER")
    with pytest.raises(ValueError, match="members to remove, line 1"):
        parse_members_to_remove("a@x.test READ")
    with pytest.raises(ValidationError):
        ShareForm.model_validate({"level": "EVERYONE"})
