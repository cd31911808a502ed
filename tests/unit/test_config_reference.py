"""docs/configuration.md is what `make docs` writes from the settings model: every user setting in it with
a description, an area and its true default; the internal ones (crash tests, set by `svc up`) left out."""

from enum import StrEnum
from pathlib import Path
from typing import Literal

import pytest
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from schemas.settings import Settings
from svc import config_reference
from svc.config_reference import AREAS, area_of, default_text, render, type_text, user_settings

pytestmark = pytest.mark.unit

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"
INTERNAL = {
    "table_pause_before_commit_seconds",
    "scheduler_pause_before_action_seconds",
    "broker_started_at",
    "embedded_broker_signal_file",
}


def test_the_reference_is_what_make_docs_writes() -> None:
    assert REFERENCE.read_text() == render(Settings), "docs/configuration.md drifted: run `make docs`"


def test_every_user_setting_has_a_one_line_meaning_and_an_area() -> None:
    fields = user_settings(Settings)
    assert {name for name, field in fields.items() if not (field.description or "").strip()} == set()
    assert {name for name in fields if area_of(name) not in AREAS} == set()


def test_the_areas_name_only_user_settings_each_once() -> None:
    named = [name for names in config_reference._AREA_OF.values() for name in names]
    assert len(named) == len(set(named))
    assert set(named) == set(user_settings(Settings))
    assert list(config_reference._AREA_OF) == list(AREAS)


def test_internal_settings_are_marked_and_left_out_of_the_reference() -> None:
    assert set(Settings.model_fields) - set(user_settings(Settings)) == INTERNAL
    reference = render(Settings)
    for name in INTERNAL:
        assert f"SVC_{name.upper()}" not in reference
    assert "`SVC_PORT` | int | `8080` |" in reference


def test_the_defaults_given_in_words_are_the_derived_ones(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    fields = Settings.model_fields

    def derived(name: str) -> str:
        return default_text(name, fields[name]).strip("`").replace("<data dir>", str(tmp_path.resolve()))

    assert derived("database_url") == settings.resolved_database_url
    assert derived("warehouse") == settings.resolved_warehouse
    assert derived("object_store") == settings.resolved_object_store


class _Colour(StrEnum):
    RED = "red"
    BLUE = "blue"


class _Sample(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="X_")

    size_bytes: int = Field(16 * 1024**2, description="A size | with a pipe.")
    odd_bytes: int = Field(1000, description="Not a power of two.")
    wait_seconds: float = Field(10.0, description="A whole float.")
    flag: bool = Field(True, description="A flag.")
    colour: _Colour = Field(_Colour.RED, description="An enum.")
    mode: Literal["all", "off"] = Field("all", description="A literal.")
    where: str | None = Field(None, description="Unset by default.")
    hidden: int = Field(0, json_schema_extra={"internal": True})


def test_types_and_defaults_are_written_as_a_reader_sets_them() -> None:
    fields = _Sample.model_fields
    assert default_text("size_bytes", fields["size_bytes"]) == "`16777216` (16 MiB)"
    assert default_text("odd_bytes", fields["odd_bytes"]) == "`1000`"
    assert default_text("wait_seconds", fields["wait_seconds"]) == "`10`"
    assert default_text("flag", fields["flag"]) == "`true`"
    assert default_text("colour", fields["colour"]) == "`red`"
    assert default_text("where", fields["where"]) == "unset"
    assert type_text(fields["colour"].annotation) == "one of `red`, `blue`"
    assert type_text(fields["mode"].annotation) == "one of `all`, `off`"
    assert type_text(fields["where"].annotation) == "str"
    assert type_text(Path) == "path"
    assert "hidden" not in user_settings(_Sample)
    assert config_reference.env_name(_Sample, "flag") == "X_FLAG"
