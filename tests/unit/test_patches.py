"""Canaries for svc/patches.py: each patch's library is at the version the patch was written for and still
has what it replaces, so an upgrade fails here (and at start-up) instead of silently undoing a tuning."""

from __future__ import annotations

import dataclasses
import importlib.metadata
import inspect
import tomllib
from pathlib import Path
from typing import Any

import pytest

from svc import patches
from svc.patches import ALL_PATCHES, Patch, PatchTargetMoved

pytestmark = pytest.mark.unit
PINNED = {
    line.split("==")[0].split("[")[0]: line.split("==")[1]
    for line in tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"][
        "dependencies"
    ]
}


@pytest.mark.parametrize("patch", ALL_PATCHES, ids=lambda patch: patch.name)
def test_each_patch_targets_the_pinned_version_and_an_existing_attribute(patch: Patch) -> None:
    assert PINNED[patch.distribution] == patch.version == importlib.metadata.version(patch.distribution)
    patch.check()


@pytest.mark.parametrize("patch", ALL_PATCHES, ids=lambda patch: patch.name)
def test_replacements_keep_the_signature_of_what_they_replace(patch: Patch) -> None:
    original = getattr(patch.target(), patch.attribute)
    replacement = patch.replacement()
    if callable(original):
        assert list(inspect.signature(replacement).parameters) == list(inspect.signature(original).parameters)
    else:
        assert type(replacement) is type(original)


def test_uvicorn_reads_the_high_water_mark_on_every_piece_of_body() -> None:
    import uvicorn.protocols.http.httptools_impl as httptools_impl

    assert "HIGH_WATER_LIMIT" in inspect.getsource(httptools_impl.HttpToolsProtocol.on_body)


def test_a_moved_version_or_attribute_refuses_to_patch() -> None:
    (uvicorn_patch,) = patches.INGRESS_PATCHES
    moved = dataclasses.replace(uvicorn_patch, version="0.0.1")
    with pytest.raises(PatchTargetMoved, match=r"written for uvicorn 0\.0\.1"):
        patches.apply((moved,))
    gone = dataclasses.replace(uvicorn_patch, attribute="NO_SUCH_LIMIT")
    with pytest.raises(PatchTargetMoved, match="is gone"):
        patches.apply((gone,))


def test_apply_installs_the_replacements_and_is_idempotent(monkeypatch: pytest.MonkeyPatch) -> None:
    for patch in ALL_PATCHES:
        monkeypatch.setattr(patch.target(), patch.attribute, getattr(patch.target(), patch.attribute))
    patches.apply(ALL_PATCHES)
    patches.apply(ALL_PATCHES)
    for patch in ALL_PATCHES:
        assert getattr(patch.target(), patch.attribute) == patch.replacement()


def test_skipping_venusian_is_sound_because_the_app_never_autodiscovers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import faust.utils.venusian as faust_venusian

    from schemas.settings import Settings
    from streams.app import create_app

    (patch,) = [patch for patch in ALL_PATCHES if patch.name == "faust-decorators-skip-venusian"]
    monkeypatch.setattr(faust_venusian, "attach", faust_venusian.attach)
    patches.apply((patch,))
    app = create_app(Settings(kafka_bootstrap="127.0.0.1:9", data_dir=tmp_path))
    conf: Any = app.conf  # Faust types `autodiscover` as its setting's default factory
    assert conf.autodiscover is False

    async def tick() -> None: ...

    app.timer(interval=1.0)(tick)
    assert not hasattr(tick, "__venusian_callbacks__")


def test_the_faust_pauses_replaced_are_still_the_sleep_and_the_calls_kept() -> None:
    """The replacements in streams/faust_pauses.py are the originals less their sleep: if Faust or mode
    change what surrounds the sleep, the replacement would drop it too, so the originals must still read
    as they did."""
    from faust.tables.manager import TableManager
    from mode.worker import Worker

    on_start = [line.strip() for line in inspect.getsource(TableManager.on_start).splitlines()]
    assert on_start[-4:] == [
        "await self.sleep(1.0)",
        "if not self.should_stop:",
        "await self._update_channels()",
        "await self.recovery.start()",
    ]
    sentinel = [line.strip() for line in inspect.getsource(Worker._sentinel_task).splitlines()]
    assert sentinel[-1] == "await asyncio.sleep(1.0)"
