"""The choice of real servers for the integration and e2e tiers (tests/fixtures/backends.py)."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

from tests.fixtures.backends import Choice, choose, docker_answers, docker_endpoint

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("environ", "docker", "expected"),
    [
        ({}, False, Choice("tansu", "sqlite", "moto")),
        ({}, True, Choice("container", "sqlite", "container")),
        ({"SVC_TEST_CONTAINERS": "off"}, True, Choice("tansu", "sqlite", "moto")),
        ({"SVC_TEST_DATABASE": "postgresql"}, False, Choice("tansu", "postgresql-embedded", "moto")),
        ({"SVC_TEST_DATABASE": "postgresql"}, True, Choice("container", "postgresql-container", "container")),
        (
            {"SVC_TEST_DATABASE": "pg", "SVC_TEST_POSTGRES_URL": "postgresql://u@db/x"},
            True,
            Choice("container", "postgresql-external", "container"),
        ),
        ({"SVC_TEST_KAFKA_BOOTSTRAP": "k:9092"}, True, Choice("external", "sqlite", "container")),
        ({"SVC_TEST_CONTAINERS": "require"}, True, Choice("container", "sqlite", "container")),
    ],
)
def test_the_choice_follows_the_environment_and_docker(
    environ: dict[str, str], docker: bool, expected: Choice
) -> None:
    assert choose(environ, docker) == expected


def test_requiring_containers_without_docker_fails_the_run_rather_than_falling_back() -> None:
    with pytest.raises(RuntimeError, match="no Docker engine answers"):
        choose({"SVC_TEST_CONTAINERS": "require"}, docker=False)


@pytest.mark.parametrize("name", ["SVC_TEST_CONTAINERS", "SVC_TEST_DATABASE"])
def test_an_unknown_value_is_an_error_not_a_default(name: str) -> None:
    with pytest.raises(ValueError, match=name):
        choose({name: "maybe"}, docker=False)


def test_the_header_names_every_part() -> None:
    line = Choice("tansu", "postgresql-embedded", "moto").header()
    assert line == "servers: broker tansu, metadata database postgresql-embedded, S3 moto"


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        (None, ("unix", "/var/run/docker.sock")),
        ("unix:///run/user/1000/docker.sock", ("unix", "/run/user/1000/docker.sock")),
        ("tcp://10.0.0.5:2376", ("tcp", ("10.0.0.5", 2376))),
        ("tcp://docker", ("tcp", ("docker", 2375))),
    ],
)
def test_docker_host_forms(host: str | None, expected: tuple[str, object]) -> None:
    assert docker_endpoint({"DOCKER_HOST": host} if host else {}) == expected


def test_docker_answers_only_when_something_says_ok_to_the_ping(tmp_path: Path) -> None:
    path = tmp_path / "docker.sock"
    assert not docker_answers({"DOCKER_HOST": f"unix://{path}"})  # nothing there
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)

    def answer() -> None:
        connection, _ = server.accept()
        with connection:
            connection.recv(4096)
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK")

    thread = threading.Thread(target=answer)
    thread.start()
    try:
        assert docker_answers({"DOCKER_HOST": f"unix://{path}"})
    finally:
        thread.join(5)
        server.close()
