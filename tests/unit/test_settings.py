"""The project's own rules about settings: README.md's table says every setting's default truly, the
locations and counts derived from other settings, the secret's rules, the broker profiles' tuning."""

import os
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from schemas.settings import DEV_SECRET_KEY, BrokerProfile, Settings
from sinks.embedded_broker.profile import TUNING, tuning_of

pytestmark = pytest.mark.unit

README = Path(__file__).resolve().parents[2] / "README.md"
_ROW = re.compile(r"^\| `SVC_([A-Z0-9_]+)` \| ([^|]+) \|", re.MULTILINE)
# Set by `svc up` on the children it starts, never by hand: not in the table.
_SET_BY_SVC_UP = frozenset({"embedded_broker_signal_file", "broker_started_at"})
# A default the table gives in words: the derived value it stands for.
_DERIVED = {
    "database_url": "resolved_database_url",
    "warehouse": "resolved_warehouse",
    "object_store": "resolved_object_store",
}
_UNITS = {"MiB": 2**20}


def readme_defaults() -> dict[str, str]:
    """The Default column of README.md's settings table, by field name, backticks taken off."""
    return {name.lower(): cell.strip().strip("`") for name, cell in _ROW.findall(README.read_text())}


def documented(cell: str, data_dir: Path) -> object:
    """What a Default cell says, as a value to compare with the setting's."""
    if cell == "unset":
        return None
    if cell == "development value":
        return DEV_SECRET_KEY
    if "<data dir>" in cell:
        return cell.replace("<data dir>", str(data_dir.resolve()))
    number, _, unit = cell.partition(" ")
    if unit in _UNITS:
        return int(number) * _UNITS[unit]
    return cell


def same(value: object, cell: object) -> bool:
    if cell is None or value is None:
        return value is cell
    if isinstance(value, bool):
        return str(cell) == str(value).lower()
    if isinstance(value, int | float):
        return value == (cell if isinstance(cell, int) else float(str(cell)))
    if isinstance(value, Path):
        return value == Path(str(cell))
    return str(value) == str(cell)


def test_defaults_match_the_readme(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [name for name in os.environ if name.startswith("SVC_")]:
        monkeypatch.delenv(name)
    settings = Settings()
    table = readme_defaults()
    assert set(Settings.model_fields) - _SET_BY_SVC_UP == set(table), "a setting missing from the table"
    wrong = {}
    for name, cell in table.items():
        expected = documented(cell, settings.data_dir)
        value = getattr(settings, _DERIVED.get(name, name))
        if not same(value, expected):
            wrong[name] = (value, cell)
    assert wrong == {}, "README.md's Default column against schemas/settings.py: (setting's, README's)"


def test_the_readme_check_sees_a_wrong_default() -> None:
    """The comparison above can fail: a number, a flag, a size and a location each told apart."""
    data_dir = Path(".svc")
    assert same(8080, documented("8080", data_dir)) and not same(8081, documented("8080", data_dir))
    assert same(10.0, documented("10", data_dir)) and not same(10.5, documented("10", data_dir))
    assert same(True, documented("true", data_dir)) and not same(False, documented("true", data_dir))
    assert same(64 * 2**20, documented("64 MiB", data_dir)) and not same(64, documented("64 MiB", data_dir))
    assert same(None, documented("unset", data_dir)) and not same("x", documented("unset", data_dir))
    warehouse = str(Path(".svc/warehouse").resolve())
    assert documented("<data dir>/warehouse", data_dir) == warehouse


def test_locations_follow_the_data_dir_unless_given(tmp_path: Path) -> None:
    inside = Settings(data_dir=tmp_path)
    assert inside.resolved_database_url == f"sqlite:///{tmp_path.resolve() / 'svc.db'}"
    assert inside.resolved_warehouse == str(tmp_path.resolve() / "warehouse")
    assert inside.resolved_object_store == str(tmp_path.resolve() / "objects")
    given = Settings(
        data_dir=tmp_path,
        database_url="postgresql://u:p@db/svc",
        warehouse="s3://lake/warehouse",
        object_store="s3://bucket/prefix/",
    )
    assert given.resolved_database_url == "postgresql://u:p@db/svc"
    assert given.resolved_warehouse == "s3://lake/warehouse"
    assert given.resolved_object_store == "s3://bucket/prefix"  # without the trailing slash


def test_sqlite_has_one_committer_and_postgresql_as_many_as_set() -> None:
    assert Settings(db_committers=4).resolved_db_committers == 1
    assert Settings(db_committers=4, database_url="postgresql://u:p@db/svc").resolved_db_committers == 4


def test_the_broker_is_embedded_unless_a_bootstrap_is_given_and_topics_carry_the_prefix() -> None:
    assert Settings().embedded_broker
    assert not Settings(kafka_bootstrap="broker:9092").embedded_broker
    assert Settings(topic_prefix="t1.").topic("webhook.deliveries") == "t1.webhook.deliveries"


def test_the_secret_must_be_private_in_production_and_long_enough() -> None:
    with pytest.raises(ValidationError, match="SVC_SECRET_KEY must be set"):
        Settings(environment="production", secret_key=DEV_SECRET_KEY)
    assert Settings(environment="production", secret_key="x" * 32).secret_key == "x" * 32
    assert Settings(environment="development", secret_key=DEV_SECRET_KEY).secret_key == DEV_SECRET_KEY
    with pytest.raises(ValidationError, match="at least 16 characters"):
        Settings(secret_key="x" * 15)
    assert Settings(secret_key="x" * 16).secret_key == "x" * 16


def test_the_delivery_topic_has_its_own_partition_count() -> None:
    settings = Settings(topic_partitions=3, delivery_topic_partitions=12)
    assert settings.partitions("webhook.deliveries") == 12
    assert [settings.partitions(name) for name in ("webhook.results", "table.appends")] == [3, 3]


def test_a_broker_profile_gives_the_client_tuning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SVC_KAFKA_FETCH_MAX_WAIT_MS", raising=False)
    for profile in BrokerProfile:
        monkeypatch.setenv("SVC_BROKER_PROFILE", profile.value)
        assert tuning_of(Settings()) == TUNING[profile]
    monkeypatch.delenv("SVC_BROKER_PROFILE")
    assert Settings().broker_profile is BrokerProfile.EMBEDDED
    assert tuning_of(Settings()).idle_wait_ms == 20


def test_a_set_idle_wait_wins_and_bounds_the_waits_of_a_stream() -> None:
    embedded = tuning_of(Settings(kafka_fetch_max_wait_ms=100))
    assert (embedded.idle_wait_ms, embedded.busy_wait_ms, embedded.loaded_wait_ms) == (100, 2, 20)
    assert embedded.quiet_wait_ms == 500
    short = tuning_of(Settings(broker_profile=BrokerProfile.KAFKA, kafka_fetch_max_wait_ms=50))
    assert (short.idle_wait_ms, short.busy_wait_ms, short.loaded_wait_ms, short.quiet_wait_ms) == (
        50,
        50,
        50,
        500,
    )
    long = tuning_of(Settings(kafka_fetch_max_wait_ms=1000))
    assert long.quiet_wait_ms == 1000  # the quiet wait is never shorter than the idle one


def test_an_unknown_broker_profile_is_refused() -> None:
    with pytest.raises(ValidationError, match="broker_profile"):
        Settings(broker_profile="tansu-turbo")
