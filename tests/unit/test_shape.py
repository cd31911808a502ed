"""The lines `svc up` prints about what it runs on, its process counts, and its refusals: never a secret."""

from pathlib import Path

import pytest

from schemas.settings import Settings
from svc.database import _reason
from svc.shape import (
    ProcessCounts,
    database_location,
    metrics_port_clash,
    metrics_ports,
    process_counts,
    shape_lines,
    sqlite_refusal,
    without_credentials,
    worker_metrics_ports,
)

pytestmark = pytest.mark.unit

POSTGRES = "postgresql://svc:hunter2-secret@db.internal:5433/svc"


def settings(tmp_path: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "data_dir": tmp_path,
        "host": "127.0.0.1",
        "database_url": None,
        "kafka_bootstrap": None,
        "warehouse": None,
        "object_store": None,
        "s3_endpoint": None,
        "ingress_processes": None,
        "worker_processes": None,
        "worker_id": "svc-worker",
    }
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (POSTGRES, "postgresql at db.internal:5433, database svc"),
        ("postgresql+psycopg://u:p@10.0.0.5/orders", "postgresql at 10.0.0.5, database orders"),
        (
            "postgresql://postgres:@/t_1?host=/tmp/pg-socket",
            "postgresql at socket /tmp/pg-socket, database t_1",
        ),
        (
            "postgresql://u:secret@/svc?password=other-secret",
            "postgresql at the default socket, database svc",
        ),
        ("sqlite:////var/lib/svc/svc.db", "sqlite file /var/lib/svc/svc.db"),
        ("sqlite://", "sqlite in memory"),
        ("not a url at all", "a database URL that cannot be parsed"),
    ],
)
def test_database_location_names_where_never_who(url: str, expected: str) -> None:
    assert database_location(url) == expected


@pytest.mark.parametrize(
    ("location", "expected"),
    [
        ("/srv/warehouse", "/srv/warehouse"),
        ("s3://bucket/prefix", "s3://bucket/prefix"),
        ("s3://AKIAKEY:s3cret@bucket/prefix?token=t0ken#x", "s3://bucket/prefix"),
        ("http://user:pw@minio:9000", "http://minio:9000"),
    ],
)
def test_without_credentials(location: str, expected: str) -> None:
    assert without_credentials(location) == expected


def test_the_shape_of_a_postgresql_stack_with_a_password_in_its_url(tmp_path: Path) -> None:
    configured = settings(
        tmp_path,
        database_url=POSTGRES,
        object_store="s3://svc-objects/prod",
        s3_endpoint="http://minio-user:minio-secret@minio:9000",
        warehouse="s3://svc-warehouse/tables",
    )
    lines = shape_lines(
        configured, bootstrap="127.0.0.1:9092", counts=ProcessCounts(ingress=4, workers=2), port=8080
    )
    assert lines == [
        "database:     postgresql at db.internal:5433, database svc",
        "broker:       embedded at 127.0.0.1:9092 (in memory; restarted empty if it dies)",
        "warehouse:    s3://svc-warehouse/tables",
        "object store: s3://svc-objects/prod via http://minio:9000",
        "ingress:      4 processes sharing 127.0.0.1:8080",
        "workers:      2 processes in consumer group svc-worker",
        "metrics:      http://127.0.0.1:9464-9467/metrics (ingress), "
        "http://127.0.0.1:9564-9565/metrics (workers)",
    ]
    text = "\n".join(lines)
    for secret in ("hunter2", "secret", "minio-user"):
        assert secret not in text


def test_the_shape_of_the_default_stack(tmp_path: Path) -> None:
    lines = shape_lines(
        settings(tmp_path), bootstrap="127.0.0.1:9092", counts=ProcessCounts(ingress=1, workers=1), port=8080
    )
    assert lines[0] == f"database:     sqlite file {tmp_path.resolve() / 'svc.db'}"
    assert lines[2] == f"warehouse:    {tmp_path.resolve() / 'warehouse'}"
    assert lines[3] == f"object store: {tmp_path.resolve() / 'objects'} (local directory)"
    assert lines[4:] == [
        "ingress:      1 process on 127.0.0.1:8080",
        "workers:      1 process in consumer group svc-worker",
        "metrics:      http://127.0.0.1:9464/metrics (ingress), http://127.0.0.1:9564/metrics (workers)",
    ]


def test_metrics_ports_are_consecutive_per_ingress_process_and_none_when_off(tmp_path: Path) -> None:
    assert metrics_ports(settings(tmp_path, metrics_port=9500), 3) == [9500, 9501, 9502]
    assert metrics_ports(settings(tmp_path, metrics_port=0), 3) == []
    off = settings(tmp_path, metrics_port=0, worker_metrics_port=0)
    lines = shape_lines(off, bootstrap="b:1", counts=ProcessCounts(ingress=2, workers=1), port=80)
    assert lines[-1] == "metrics:      off (SVC_METRICS_PORT=0, SVC_WORKER_METRICS_PORT=0)"


def test_worker_metrics_ports_are_consecutive_per_worker_and_printed_beside_the_ingress_ones(
    tmp_path: Path,
) -> None:
    assert worker_metrics_ports(settings(tmp_path, worker_metrics_port=9600), 3) == [9600, 9601, 9602]
    assert worker_metrics_ports(settings(tmp_path, worker_metrics_port=0), 3) == []
    both = settings(tmp_path, metrics_port=9500, worker_metrics_port=9600)
    lines = shape_lines(both, bootstrap="b:1", counts=ProcessCounts(ingress=2, workers=3), port=80)
    assert lines[-1] == (
        "metrics:      http://127.0.0.1:9500-9501/metrics (ingress), "
        "http://127.0.0.1:9600-9602/metrics (workers)"
    )
    workers_only = settings(tmp_path, metrics_port=0, worker_metrics_port=9600)
    lines = shape_lines(workers_only, bootstrap="b:1", counts=ProcessCounts(ingress=1, workers=1), port=80)
    assert lines[-1] == "metrics:      http://127.0.0.1:9600/metrics (workers)"


def test_overlapping_metrics_ports_are_refused(tmp_path: Path) -> None:
    counts = ProcessCounts(ingress=3, workers=2)
    assert metrics_port_clash(settings(tmp_path), counts) is None
    assert metrics_port_clash(settings(tmp_path, metrics_port=9500, worker_metrics_port=9503), counts) is None
    assert metrics_port_clash(settings(tmp_path, metrics_port=0, worker_metrics_port=9464), counts) is None
    clash = metrics_port_clash(settings(tmp_path, metrics_port=9500, worker_metrics_port=9502), counts)
    assert clash == (
        "the ingress's metrics ports (9500-9502) and the workers' (9502-9503) overlap: "
        "set SVC_METRICS_PORT and SVC_WORKER_METRICS_PORT further apart"
    )


def test_an_external_broker_is_named_by_its_bootstrap(tmp_path: Path) -> None:
    configured = settings(tmp_path, kafka_bootstrap="k1:9092,k2:9092")
    lines = shape_lines(
        configured, bootstrap="k1:9092,k2:9092", counts=ProcessCounts(ingress=1, workers=1), port=80
    )
    assert lines[1] == "broker:       external, bootstrap k1:9092,k2:9092"


def test_default_counts_are_one_on_sqlite_and_a_core_each_on_postgresql(tmp_path: Path) -> None:
    assert process_counts(settings(tmp_path), cpu_count=8) == ProcessCounts(ingress=1, workers=1)
    assert process_counts(settings(tmp_path, database_url=POSTGRES), cpu_count=8) == ProcessCounts(8, 8)
    assert process_counts(settings(tmp_path, database_url=POSTGRES), cpu_count=None) == ProcessCounts(1, 1)
    chosen = settings(tmp_path, database_url=POSTGRES, ingress_processes=3, worker_processes=5)
    assert process_counts(chosen, cpu_count=8) == ProcessCounts(ingress=3, workers=5)


def test_more_than_one_process_on_sqlite_is_refused_in_one_line(tmp_path: Path) -> None:
    assert sqlite_refusal(settings(tmp_path), ProcessCounts(1, 1)) is None
    refusal = sqlite_refusal(settings(tmp_path, worker_processes=2), ProcessCounts(1, 2))
    assert refusal is not None and "\n" not in refusal
    assert refusal.startswith(
        "SVC_WORKER_PROCESSES=2: more than one process needs PostgreSQL, since SQLite allows one writer"
    )
    both = sqlite_refusal(settings(tmp_path), ProcessCounts(3, 2))
    assert both is not None and both.startswith("SVC_INGRESS_PROCESSES=3 and SVC_WORKER_PROCESSES=2: more")
    assert sqlite_refusal(settings(tmp_path, database_url=POSTGRES), ProcessCounts(4, 4)) is None


def test_a_driver_message_is_one_line_without_the_password() -> None:
    class DriverError(Exception):
        pass

    error = DriverError('connection to "db.internal" failed: hunter2-secret rejected\nDETAIL: more')
    assert _reason(error, POSTGRES) == 'connection to "db.internal" failed: *** rejected'
