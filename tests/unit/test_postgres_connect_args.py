"""Both PostgreSQL engines (the metadata DB's and the Iceberg catalog's) bound a connection attempt and find a
vanished server by TCP keepalives; a URL's own values win."""

from __future__ import annotations

import pytest
from sqlalchemy import make_url

from sinks.db.engine import with_postgres_connect_args

pytestmark = pytest.mark.unit


def test_the_timeout_and_keepalives_are_added_to_a_url() -> None:
    url = make_url(with_postgres_connect_args("postgresql+psycopg://svc:s3cret@db.internal:5432/svc"))
    assert url.password == "s3cret" and url.host == "db.internal" and url.database == "svc"
    assert dict(url.query) == {
        "connect_timeout": "5",
        "keepalives": "1",
        "keepalives_idle": "10",
        "keepalives_interval": "5",
        "keepalives_count": "3",
    }


def test_a_urls_own_values_win_and_a_socket_path_stays() -> None:
    given = "postgresql+psycopg://svc:@/svc?host=/run/postgresql&connect_timeout=30"
    url = make_url(with_postgres_connect_args(given))
    assert url.query["connect_timeout"] == "30" and url.query["host"] == "/run/postgresql"
    assert url.query["keepalives"] == "1"
