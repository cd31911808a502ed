"""The roles configure the ORM's mappers as they start (svc/roles.py), not inside the first group commit that
names a model: that commit holds the metadata DB's write lock, and configuring the mappers there kept the
other processes' commits waiting. A fresh interpreter each, since a test process has configured them long
ago."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.integration

PROBE = """
import sqlalchemy.orm
from svc import roles
from sinks.db.models import WebhookExecution
mapper = sqlalchemy.inspect(WebhookExecution)
before = mapper.configured
{call}
print(before, mapper.configured)
"""


@pytest.mark.parametrize(
    ("call", "printed"),
    [("", "False False"), ("roles._configure_the_models()", "False True")],
)
def test_the_mappers_are_configured_by_the_roles_start_and_not_before(call: str, printed: str) -> None:
    command = [sys.executable, "-c", PROBE.format(call=call)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == printed
