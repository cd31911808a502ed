"""The computations the sandbox workers run besides scripts, by name: ``module:function`` taking and returning
JSON. Only these can run; the module is imported in the worker on first use, so the service's own processes
never load what only a worker needs."""

from __future__ import annotations

TASKS: dict[str, str] = {
    "jsonpath": "core.webhooks.transform:jsonpath_task",
}
