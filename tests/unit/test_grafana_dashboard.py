"""compose/grafana/svc-dashboard.json asks Prometheus only for series the service exports: every metric its
queries name is one a ``prometheus_client`` metric in the code produces, the ingress's or a worker's (found by
reading the code, so a renamed metric fails here rather than leaving an empty panel), and every metric a
worker exports has a panel. Prometheus in compose scrapes both roles on their settings' default ports."""

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
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from schemas.settings import Settings
from streams.metrics import WorkerMetrics

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
# A custom collector's families (ingress/webhooks/destination_metrics.py) expose what their metric kind does.
FAMILIES = {
    "CounterMetricFamily": "Counter",
    "GaugeMetricFamily": "Gauge",
    "HistogramMetricFamily": "Histogram",
    "SummaryMetricFamily": "Summary",
    "InfoMetricFamily": "Info",
}
# The series of a worker's metrics the dashboard must chart (streams/metrics.py).
WORKER_SERIES = (
    "svc_delivery_attempts_total",
    "svc_delivery_handler_seconds_bucket",
    "svc_delivery_queue_lag_seconds_bucket",
    "svc_scheduled_runs_total",
    "svc_query_jobs_total",
)
_METRIC = re.compile(r"\b(svc_[a-z0-9_]+)\b")
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')  # label values, which may hold paths like /svc_poweruser/...


def declared_metrics(source: str) -> Iterator[tuple[str, str]]:
    """(kind, name) of each ``prometheus_client`` metric a module makes with a literal name."""
    tree = ast.parse(source)
    kinds: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "prometheus_client":
            for alias in node.names:
                kind = FAMILIES.get(alias.name, alias.name)
                if kind in SUFFIXES:
                    kinds[alias.asname or alias.name] = kind
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


def test_the_code_scan_finds_the_worker_and_collector_metrics() -> None:
    assert set(WORKER_SERIES) <= exported_series()
    assert {"svc_destinations", "svc_deliveries_waiting"} <= exported_series()
    assert list(
        declared_metrics(
            "from prometheus_client.core import GaugeMetricFamily\nGaugeMetricFamily('svc_g', 'g')"
        )
    ) == [("Gauge", "svc_g")]


def test_the_scan_agrees_with_what_a_worker_serves() -> None:
    served = {
        sample.name
        for family in text_string_to_metric_families(generate_latest(WorkerMetrics().registry).decode())
        for sample in family.samples
    }
    # _count and _sum of a histogram with no observation yet are served too; _created only on some versions.
    assert served - exported_series() == set()
    assert set(WORKER_SERIES) <= served


def test_the_dashboard_has_a_panel_for_every_worker_metric(dashboard: dict[str, Any]) -> None:
    named = {name for expr in queries(dashboard["panels"]) for name in metric_names(expr)}
    assert set(WORKER_SERIES) <= named, f"no panel: {sorted(set(WORKER_SERIES) - named)}"
    assert {"svc_destinations", "svc_deliveries_waiting"} <= named


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
    jobs = {job["job_name"]: job["dns_sd_configs"][0] for job in scrape["scrape_configs"]}
    assert jobs["svc-ingress"] == {"names": ["ingress"], "type": "A", "port": default("metrics_port")}
    assert jobs["svc-worker"] == {"names": ["worker"], "type": "A", "port": default("worker_metrics_port")}
    # Neither role's port is set in compose: the scrape config's ports are the settings' defaults.
    environment = services["worker"]["environment"]
    assert "SVC_WORKER_METRICS_PORT" not in environment and "SVC_METRICS_PORT" not in environment


def default(name: str) -> int:
    value = Settings.model_fields[name].default
    assert isinstance(value, int)
    return value
