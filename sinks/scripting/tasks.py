"""The computations the sandbox workers run besides scripts, by name: ``module:function`` taking and returning
JSON. Only these can run; the module is imported in the worker on first use, so the service's own processes
never load what only a worker needs."""

from __future__ import annotations

TASKS: dict[str, str] = {
    "jsonpath": "core.webhooks.transform:jsonpath_task",
    # Analysis of a caller's analytics SQL (ingress/analytics/query_planning.py).
    "sql_parse": "core.sql.remote:parse_task",
    "sql_compile": "core.sql.remote:compile_task",
}
