"""No Docker engine runs here, so the compose stack's agreements with the code are checked as data."""

from __future__ import annotations

import argparse
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from schemas.settings import Settings
from schemas.topics import ALL_TOPICS
from svc.cli import _parser

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_DIR = ROOT / "compose"
COMPOSE_FILE = COMPOSE_DIR / "docker-compose.yml"
DOCKERFILE = COMPOSE_DIR / "Dockerfile"
ENV_EXAMPLE = COMPOSE_DIR / ".env.example"
DOCKERIGNORE = ROOT / ".dockerignore"

# Read by code that has not landed yet; each name leaves this set when it becomes a Settings field.
PENDING_SVC_VARIABLES: frozenset[str] = frozenset()

SVC_SERVICES = {"migrate": "migrate", "ingress": "ingress", "worker": "worker"}
LONG_RUNNING = ("ingress", "worker")

_SVC_NAME = re.compile(r"\bSVC_[A-Z0-9_]+\b")
# ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:?message}, ${NAME?message}
_INTERPOLATION = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?P<op>:?[-?])?(?P<arg>[^}]*)\}")


def _text_without_escapes(text: str) -> str:
    """Compose reads ``$$`` as a literal dollar, so it starts no interpolation."""
    return text.replace("$$", "")


def _json_instruction(dockerfile: str, instruction: str) -> list[str]:
    found = [
        line.split(None, 1)[1] for line in dockerfile.splitlines() if line.split(None, 1)[:1] == [instruction]
    ]
    assert len(found) == 1, f"expected exactly one {instruction} in {DOCKERFILE.name}"
    value = json.loads(found[0])
    assert isinstance(value, list), f"{instruction} must use the exec (JSON) form"
    return value


@pytest.fixture(scope="module")
def compose_text() -> str:
    return COMPOSE_FILE.read_text()


@pytest.fixture(scope="module")
def compose(compose_text: str) -> dict[str, Any]:
    document = yaml.safe_load(compose_text)
    assert isinstance(document, dict)
    return document


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = compose["services"]
    return found


@pytest.fixture(scope="module")
def dockerfile() -> str:
    return DOCKERFILE.read_text()


@pytest.fixture(scope="module")
def cli_roles() -> set[str]:
    subcommands = next(
        action for action in _parser()._actions if isinstance(action, argparse._SubParsersAction)
    )
    return set(subcommands.choices)


@pytest.fixture(scope="module")
def known_svc_variables() -> set[str]:
    prefix = Settings.model_config.get("env_prefix", "")
    return {f"{prefix}{name}".upper() for name in Settings.model_fields}


def test_every_image_is_pinned(services: dict[str, dict[str, Any]]) -> None:
    for name, service in services.items():
        image = service.get("image")
        assert image, f"{name}: every service names its image, built ones included"
        assert "${" not in image, f"{name}: the image must not depend on the environment"
        repository, _, tag = image.rpartition(":")
        assert repository and "/" not in tag, f"{name}: {image} has no tag"
        assert tag != "latest", f"{name}: {image} is not pinned"


def test_the_svc_image_carries_the_project_version(services: dict[str, dict[str, Any]]) -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    for name in SVC_SERVICES:
        assert services[name]["image"].rpartition(":")[2] == version, name


def test_svc_variables_are_settings_fields(compose_text: str, known_svc_variables: set[str]) -> None:
    for source, text in (("compose file", compose_text), (".env.example", ENV_EXAMPLE.read_text())):
        unknown = set(_SVC_NAME.findall(text)) - known_svc_variables - PENDING_SVC_VARIABLES
        assert not unknown, f"{source} uses SVC_ variables that Settings does not read: {sorted(unknown)}"


def test_pending_variables_are_still_pending_and_still_used(
    compose_text: str, known_svc_variables: set[str]
) -> None:
    landed = PENDING_SVC_VARIABLES & known_svc_variables
    assert not landed, f"now Settings fields, drop them from PENDING_SVC_VARIABLES: {sorted(landed)}"
    unused = PENDING_SVC_VARIABLES - set(_SVC_NAME.findall(compose_text))
    assert not unused, f"no longer used by the compose file: {sorted(unused)}"


def test_svc_services_share_one_production_environment(
    compose: dict[str, Any], services: dict[str, dict[str, Any]]
) -> None:
    shared = compose["x-svc-env"]
    assert shared["SVC_ENVIRONMENT"] == "production"
    assert shared["SVC_KAFKA_BOOTSTRAP"] == "kafka:9092"
    assert shared["SVC_DATABASE_URL"].startswith("postgresql://svc:")
    assert shared["SVC_DATABASE_URL"].endswith("@postgres:5432/svc")
    # The topics one-shot creates the topics under the default prefix only.
    assert "SVC_TOPIC_PREFIX" not in shared
    for name in SVC_SERVICES:
        assert services[name]["environment"] == shared, f"{name} must use the x-svc-env anchor"


def test_secrets_are_required_not_written_down(services: dict[str, dict[str, Any]]) -> None:
    for name, service in services.items():
        for key, value in (service.get("environment") or {}).items():
            if any(word in key for word in ("PASSWORD", "SECRET")):
                match = _INTERPOLATION.fullmatch(str(value))
                assert match, f"{name}: {key} must come from the environment, not the file"
                assert match["op"] == ":?", f"{name}: {key} must be required (${{{key}:?...}})"


def test_env_example_lists_every_required_variable(compose_text: str) -> None:
    required = {
        match["name"]
        for match in _INTERPOLATION.finditer(_text_without_escapes(compose_text))
        if match["op"] in (":?", "?")
    }
    listed = {
        line.split("=", 1)[0].strip()
        for line in ENV_EXAMPLE.read_text().splitlines()
        if "=" in line and not line.lstrip().startswith("#")
    }
    assert required <= listed, f"missing from .env.example: {sorted(required - listed)}"


def test_svc_services_run_roles_the_cli_offers(
    services: dict[str, dict[str, Any]], cli_roles: set[str], dockerfile: str
) -> None:
    for name, role in SVC_SERVICES.items():
        command = services[name]["command"]
        assert command == [role], f"{name} runs {command}"
        assert role in cli_roles, f"`svc {role}` is not a CLI role: {sorted(cli_roles)}"
    default = _json_instruction(dockerfile, "CMD")
    assert len(default) == 1
    assert default[0] in cli_roles


def test_svc_services_build_from_the_repository_root(services: dict[str, dict[str, Any]]) -> None:
    for name in SVC_SERVICES:
        build = services[name]["build"]
        assert (COMPOSE_DIR / build["context"]).resolve() == ROOT, name
        assert (ROOT / build["dockerfile"]).resolve() == DOCKERFILE, name


def test_start_order(services: dict[str, dict[str, Any]]) -> None:
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    for name in LONG_RUNNING:
        needs = {dependency: spec["condition"] for dependency, spec in services[name]["depends_on"].items()}
        assert needs["migrate"] == "service_completed_successfully", name
        assert needs["topics"] == "service_completed_successfully", name
        assert needs["minio-init"] == "service_completed_successfully", name
        assert needs["kafka"] == "service_healthy", name


def test_health_checks(services: dict[str, dict[str, Any]]) -> None:
    port = Settings.model_fields["port"].default
    assert "pg_isready" in services["postgres"]["healthcheck"]["test"]
    assert "healthcheck" in services["minio"]
    assert "healthcheck" in services["kafka"]
    ingress = services["ingress"]
    assert f"{port}:{port}" in ingress["ports"]
    assert f"http://127.0.0.1:{port}/readyz" in " ".join(ingress["healthcheck"]["test"])


def test_stop_grace_outlasts_the_drain(services: dict[str, dict[str, Any]]) -> None:
    drain = Settings.model_fields["shutdown_timeout_seconds"].default
    for name in LONG_RUNNING:
        grace = services[name]["stop_grace_period"]
        assert grace.endswith("s"), f"{name}: write the grace period in seconds"
        assert float(grace.removesuffix("s")) > drain, f"{name}: SIGKILL would cut the drain short"


def test_workers_are_scaled_out(services: dict[str, dict[str, Any]]) -> None:
    assert services["worker"]["deploy"]["replicas"] >= 2
    assert "SVC_WORKER_ID" not in services["worker"]["environment"], "replicas must share one group id"


def test_kafka_runs_in_kraft_mode(services: dict[str, dict[str, Any]]) -> None:
    assert not [name for name, service in services.items() if "zookeeper" in f"{name} {service['image']}"]
    kafka = services["kafka"]
    assert kafka["image"].startswith("apache/kafka:")
    environment = {key: str(value) for key, value in kafka["environment"].items()}
    assert not [key for key in environment if "ZOOKEEPER" in key]
    assert set(environment["KAFKA_PROCESS_ROLES"].split(",")) == {"broker", "controller"}
    assert environment["KAFKA_CONTROLLER_QUORUM_VOTERS"]
    assert environment["CLUSTER_ID"]
    assert environment["KAFKA_AUTO_CREATE_TOPICS_ENABLE"] == "false"


def test_svc_reaches_kafka_on_an_advertised_listener(
    compose: dict[str, Any], services: dict[str, dict[str, Any]]
) -> None:
    advertised = services["kafka"]["environment"]["KAFKA_ADVERTISED_LISTENERS"].split(",")
    addresses = {listener.split("://", 1)[1] for listener in advertised}
    for server in compose["x-svc-env"]["SVC_KAFKA_BOOTSTRAP"].split(","):
        assert server in addresses


def test_topics_match_the_code(compose: dict[str, Any], services: dict[str, dict[str, Any]]) -> None:
    prefix = Settings.model_fields["topic_prefix"].default
    topics = services["topics"]
    assert topics["image"] == services["kafka"]["image"], "the tool should match the broker's version"
    assert sorted(topics["environment"]["TOPICS"].split()) == sorted(f"{prefix}{name}" for name in ALL_TOPICS)
    script = " ".join(topics["command"])
    assert "kafka-topics.sh" in script
    assert "--create" in script
    assert "--if-not-exists" in script
    assert '--partitions "$$SVC_TOPIC_PARTITIONS"' in script
    assert '--replication-factor "$$SVC_TOPIC_REPLICATION"' in script
    for key in ("SVC_TOPIC_PARTITIONS", "SVC_TOPIC_REPLICATION"):
        assert topics["environment"][key] == compose["x-svc-env"][key], f"topics and workers differ on {key}"
    assert topics["environment"]["SVC_TOPIC_PARTITIONS"] == "${SVC_TOPIC_PARTITIONS:-12}"


def test_minio_init_creates_the_warehouse_bucket(
    compose: dict[str, Any], services: dict[str, dict[str, Any]]
) -> None:
    bucket = services["minio-init"]["environment"]["WAREHOUSE_BUCKET"]
    assert compose["x-svc-env"]["SVC_WAREHOUSE"] == f"s3://{bucket}/"
    assert "mc mb --ignore-existing" in " ".join(services["minio-init"]["command"])


def test_dockerfile_runs_svc_as_an_unprivileged_user(dockerfile: str) -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert _json_instruction(dockerfile, "ENTRYPOINT") == ["svc"]
    assert "svc" in scripts
    users = [line.split()[1] for line in dockerfile.splitlines() if line.startswith("USER ")]
    assert users, "the image must not run as root"
    assert users[-1] not in ("root", "0")


def test_dockerfile_python_matches_the_project(dockerfile: str) -> None:
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    lowest = re.search(r">=\s*(\d+\.\d+)", requires)
    assert lowest
    bases = [line.split()[1] for line in dockerfile.splitlines() if line.startswith("FROM ")]
    assert bases == [f"python:{lowest[1]}-slim"]


def test_dockerignore_keeps_local_state_and_secrets_out() -> None:
    patterns = {
        line.strip() for line in DOCKERIGNORE.read_text().splitlines() if line.strip() and line[0] != "#"
    }
    assert {".venv", ".svc", ".git", ".env", "**/.env"} <= patterns
