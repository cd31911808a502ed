"""compose/grafana/svc-dashboard.json asks Prometheus only for series the service exports: every metric its
queries name is one a ``prometheus_client`` metric in the code produces (found by reading the code, so a
renamed metric fails here rather than leaving an empty panel)."""

from __future__ import annotations

import ast
import functools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from schemas.settings import Settings

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "compose" / "grafana" / "svc-dashboard.json"
PACKAGES = ("svc", "ingress", "streams", "sinks", "core", "schemas")
# The series each kind of metric exposes, by suffix (prometheus_client's exposition).
SUFFIXES = {
    "Counter": ("_total", "_created"),
    "Gauge": ("",),
    "Histogram": ("_bucket", "_count", "_sum", "_created"),
    "Summary": ("", "_count", "_sum", "_created"),
    "Info": ("_info",),
    "Enum": ("",),
}
_METRIC = re.compile(r"\b(svc_[a-z0-9_]+)\b")
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')  # label values, which may hold paths like /svc_poweruser/...


def declared_metrics(source: str) -> Iterator[tuple[str, str]]:
    """(kind, name) of each ``prometheus_client`` metric a module makes with a literal name."""
    tree = ast.parse(source)
    kinds: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "prometheus_client":
            kinds.update(
                {alias.asname or alias.name: alias.name for alias in node.names if alias.name in SUFFIXES}
            )
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in kinds
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield kinds[node.func.id], node.args[0].value


@functools.cache
def exported_series() -> frozenset[str]:
    series: set[str] = set()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for kind, name in declared_metrics(path.read_text()):
                base = name.removesuffix("_total") if kind == "Counter" else name
                series.update(base + suffix for suffix in SUFFIXES[kind])
    return frozenset(series)


def metric_names(expr: str) -> set[str]:
    """The svc metrics a PromQL expression names (outside its quoted label values)."""
    return set(_METRIC.findall(_QUOTED.sub('""', expr)))


def queries(panels: list[dict[str, Any]]) -> Iterator[str]:
    for panel in panels:
        yield from (target["expr"] for target in panel.get("targets", []))
        yield from queries(panel.get("panels", []))


@pytest.fixture(scope="module")
def dashboard() -> dict[str, Any]:
    found: dict[str, Any] = json.loads(DASHBOARD.read_text())
    return found


def test_the_code_scan_finds_the_ingress_metrics() -> None:
    assert {"svc_http_requests_total", "svc_http_request_seconds_bucket", "svc_inline_queries_total"} <= (
        exported_series()
    )
    assert metric_names('sum(rate(svc_a_total{route="/svc_poweruser/x"}[5m]))') == {"svc_a_total"}
    assert list(declared_metrics("from prometheus_client import Counter as C\nC('svc_x', 'x')")) == [
        ("Counter", "svc_x")
    ]


def test_every_metric_the_dashboard_queries_is_exported(dashboard: dict[str, Any]) -> None:
    named = {name for expr in queries(dashboard["panels"]) for name in metric_names(expr)}
    assert named, "the dashboard queries no svc metric"
    assert named <= exported_series(), f"not exported by the service: {sorted(named - exported_series())}"


def test_panels_have_unique_ids_and_use_the_datasource_variable(dashboard: dict[str, Any]) -> None:
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            assert target["datasource"]["uid"] == "${datasource}", panel["title"]
    assert [variable["name"] for variable in dashboard["templating"]["list"]] == ["datasource"]


def test_compose_provisions_the_dashboard() -> None:
    services = yaml.safe_load((ROOT / "compose" / "docker-compose.yml").read_text())["services"]
    mounts = services["grafana"]["volumes"]
    assert any(mount.startswith("./grafana/svc-dashboard.json:") for mount in mounts)
    provider = yaml.safe_load(
        (ROOT / "compose" / "grafana" / "provisioning" / "dashboards" / "svc.yml").read_text()
    )
    dashboard_dir = provider["providers"][0]["options"]["path"]
    assert any(mount.split(":")[1].startswith(dashboard_dir + "/") for mount in mounts)
    scrape = yaml.safe_load((ROOT / "compose" / "prometheus" / "prometheus.yml").read_text())
    port = Settings.model_fields["metrics_port"].default
    assert scrape["scrape_configs"][0]["dns_sd_configs"][0]["port"] == port
