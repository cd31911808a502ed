"""The project's own rules about settings: the locations and counts derived from other settings, the
secret's rules, the broker profiles' tuning (the reference's truth: test_config_reference.py)."""

from pathlib import Path

import pytest
from pydantic import ValidationError

from schemas.settings import DEV_SECRET_KEY, BrokerProfile, Settings
from sinks.embedded_broker.profile import TUNING, tuning_of

pytestmark = pytest.mark.unit


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
