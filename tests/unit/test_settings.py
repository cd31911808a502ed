from pathlib import Path

import pytest
from pydantic import ValidationError

from schemas.settings import BROKER_PROFILES, DEV_SECRET_KEY, BrokerProfile, Settings

pytestmark = pytest.mark.unit


def test_defaults_match_the_readme(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "SVC_HOST",
        "SVC_PORT",
        "SVC_DATA_DIR",
        "SVC_DATABASE_URL",
        "SVC_KAFKA_BOOTSTRAP",
        "SVC_WAREHOUSE",
    ):
        monkeypatch.delenv(name, raising=False)
    settings = Settings()
    assert (settings.host, settings.port) == ("127.0.0.1", 8080)
    assert settings.data_dir == Path(".svc")
    assert settings.resolved_database_url == f"sqlite:///{Path('.svc/svc.db').resolve()}"
    assert settings.resolved_warehouse == str(Path(".svc/warehouse").resolve())
    assert settings.embedded_broker


def test_environment_prefix(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SVC_PORT", "9999")
    monkeypatch.setenv("SVC_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SVC_KAFKA_BOOTSTRAP", "broker:9092")
    monkeypatch.setenv("SVC_DATABASE_URL", "postgresql://u:p@db/svc")
    settings = Settings()
    assert settings.port == 9999
    assert settings.resolved_database_url == "postgresql://u:p@db/svc"
    assert not settings.embedded_broker
    assert settings.topic("webhook.deliveries") == "svc.webhook.deliveries"


def test_production_refuses_the_default_secret() -> None:
    with pytest.raises(ValidationError, match="SVC_SECRET_KEY"):
        Settings(environment="production", secret_key=DEV_SECRET_KEY)
    assert Settings(environment="production", secret_key="x" * 32).secret_key == "x" * 32


def test_settings_are_frozen_and_validated() -> None:
    settings = Settings()
    with pytest.raises(ValidationError):
        settings.port = 1  # type: ignore[misc]
    with pytest.raises(ValidationError):
        Settings(port=70000)
    with pytest.raises(ValidationError):
        Settings(secret_key="short")


def test_the_delivery_topic_has_its_own_partition_count() -> None:
    settings = Settings(topic_partitions=3, delivery_topic_partitions=12)
    assert settings.partitions("webhook.deliveries") == 12
    assert [settings.partitions(name) for name in ("webhook.results", "table.appends")] == [3, 3]
    assert Settings().delivery_topic_partitions == 32


def test_delivery_sends_are_paced_by_default_and_pacing_can_be_off() -> None:
    assert Settings().kafka_batch_pace_ms == 5
    assert Settings(kafka_batch_pace_ms=0).kafka_batch_pace_ms == 0
    with pytest.raises(ValidationError):
        Settings(kafka_batch_pace_ms=-1)


_TUNING = (
    "SVC_BROKER_PROFILE",
    "SVC_KAFKA_FETCH_MAX_WAIT_MS",
    "SVC_KAFKA_FETCH_BUSY_WAIT_MS",
    "SVC_KAFKA_FETCH_BUSY_SECONDS",
    "SVC_KAFKA_FETCH_LOADED_WAIT_MS",
    "SVC_KAFKA_BATCH_PACE_MS",
)


def _tuning(settings: Settings) -> dict[str, int | float]:
    return {name: getattr(settings, name) for name in BROKER_PROFILES[BrokerProfile.EMBEDDED]}


@pytest.mark.parametrize("profile", list(BrokerProfile))
def test_a_broker_profile_sets_every_tuning_setting(
    monkeypatch: pytest.MonkeyPatch, profile: BrokerProfile
) -> None:
    for name in _TUNING:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SVC_BROKER_PROFILE", profile.value)
    assert _tuning(Settings()) == BROKER_PROFILES[profile]
    assert _tuning(Settings(broker_profile=profile)) == BROKER_PROFILES[profile]


def test_the_embedded_profile_is_the_default_and_explicit_settings_win(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in _TUNING:
        monkeypatch.delenv(name, raising=False)
    assert Settings().broker_profile is BrokerProfile.EMBEDDED
    assert Settings().kafka_fetch_max_wait_ms == 20
    monkeypatch.setenv("SVC_BROKER_PROFILE", "kafka")
    monkeypatch.setenv("SVC_KAFKA_FETCH_MAX_WAIT_MS", "100")
    settings = Settings()
    assert settings.kafka_fetch_max_wait_ms == 100
    assert (
        settings.kafka_fetch_loaded_wait_ms
        == BROKER_PROFILES[BrokerProfile.KAFKA]["kafka_fetch_loaded_wait_ms"]
    )
    assert Settings(kafka_batch_pace_ms=0).kafka_batch_pace_ms == 0


def test_an_unknown_broker_profile_is_refused() -> None:
    with pytest.raises(ValidationError, match="broker_profile"):
        Settings(broker_profile="tansu-turbo")
