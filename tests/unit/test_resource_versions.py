"""Which version of a handler a config runs (core/versions.py), and the version object's shape."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from core.versions import LATEST_PUBLISHED, Version, VersionNotResolved, resolve, selector_of
from schemas.scheduled.actions import ToolConfig
from schemas.versions import VersionSelector, VersionState
from schemas.webhooks import ResourceExecutionConfig

pytestmark = pytest.mark.unit

P, D, A = VersionState.PUBLISHED, VersionState.DRAFT, VersionState.ARCHIVED
# v1 and v3 published, v2 archived, v4 and v5 drafts: "latest" is the highest number in a state, not the
# newest version overall.
VERSIONS = (
    Version(1, P, "http://h/1"),
    Version(2, A, "http://h/2"),
    Version(3, P, "http://h/3"),
    Version(4, D, "http://h/4"),
    Version(5, D, "http://h/5"),
)


def _selector(state: VersionState, number: int | None) -> VersionSelector:
    return VersionSelector(version_state=state, version_number=number)


@pytest.mark.parametrize(
    ("versions", "state", "number", "expected"),
    [
        # No number: the highest-numbered version in the state.
        (VERSIONS, P, None, 3),
        (VERSIONS, D, None, 5),
        (VERSIONS, A, None, 2),
        # A number: exactly that version, in exactly that state.
        (VERSIONS, P, 1, 1),
        (VERSIONS, P, 3, 3),
        (VERSIONS, D, 4, 4),
        (VERSIONS, A, 2, 2),
        # Order of the input does not matter.
        (tuple(reversed(VERSIONS)), P, None, 3),
        ((Version(1, P, "http://h/1"),), P, None, 1),
    ],
)
def test_resolution_picks(
    versions: tuple[Version, ...], state: VersionState, number: int | None, expected: int
) -> None:
    picked = resolve(versions, _selector(state, number), "TOOL t1")
    assert picked.number == expected
    assert picked.endpoint == f"http://h/{expected}"
    assert picked.resolved().model_dump(by_alias=True) == {"versionState": state, "versionNumber": expected}


@pytest.mark.parametrize(
    ("versions", "state", "number", "message"),
    [
        ((), P, None, "TOOL t1 has no PUBLISHED version"),
        ((Version(1, A, "http://h/1"),), P, None, "TOOL t1 has no PUBLISHED version"),
        ((Version(1, P, "http://h/1"),), D, None, "TOOL t1 has no DRAFT version"),
        (VERSIONS, P, 9, "TOOL t1 has no PUBLISHED version 9"),
        (VERSIONS, D, 9, "TOOL t1 has no DRAFT version 9"),
        (VERSIONS, D, 3, "TOOL t1 version 3 is PUBLISHED, not DRAFT"),
        (VERSIONS, P, 2, "TOOL t1 version 2 is ARCHIVED, not PUBLISHED"),
        (VERSIONS, A, 4, "TOOL t1 version 4 is DRAFT, not ARCHIVED"),
    ],
)
def test_resolution_refuses_with_the_resource_state_and_number(
    versions: tuple[Version, ...], state: VersionState, number: int | None, message: str
) -> None:
    with pytest.raises(VersionNotResolved) as refused:
        resolve(versions, _selector(state, number), "TOOL t1")
    assert str(refused.value) == message


def test_no_version_object_means_the_latest_published() -> None:
    assert selector_of(None) == LATEST_PUBLISHED
    assert LATEST_PUBLISHED.version_state is P and LATEST_PUBLISHED.version_number is None
    assert resolve(VERSIONS, selector_of(None), "TOOL t1").number == 3


def test_stored_version_objects() -> None:
    assert selector_of({"versionState": "DRAFT", "versionNumber": 4}) == _selector(D, 4)
    assert selector_of({}) == LATEST_PUBLISHED  # versionState defaults to PUBLISHED
    with pytest.raises(VersionNotResolved, match="stored version object"):
        selector_of({"versionState": "LIVE"})


@pytest.mark.parametrize(
    "version",
    [{"versionState": "LIVE"}, {"versionNumber": 0}, {"versionNumber": 2**31}, {"number": 1}],
)
def test_invalid_version_objects_are_refused(version: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        ToolConfig.model_validate({"toolExecutionRequest": {"toolId": "t"}, "version": version})


def test_the_version_object_belongs_to_handlers_not_svcdb() -> None:
    tool = ResourceExecutionConfig.model_validate(
        {"resourceType": "TOOL", "resourceId": "t", "version": {"versionState": "DRAFT"}}
    )
    assert tool.version == _selector(D, None)
    with pytest.raises(ValidationError, match="version not allowed for resourceType SVCDB"):
        ResourceExecutionConfig.model_validate(
            {
                "resourceType": "SVCDB",
                "svcDbConfig": {"operation": "DELETE", "targetTableId": "x", "recordId": "1"},
                "version": {"versionState": "DRAFT"},
            }
        )
