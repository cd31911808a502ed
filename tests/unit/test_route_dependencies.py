"""Each route declares the clients it uses: the ingress's routes, walked through FastAPI's own dependency
tree, reach the trigger's bundle of clients only from the trigger (served outside dependency injection), and
read from ``app.state`` only what the dependencies name."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute

from ingress import deps
from ingress.analytics import deps as analytics_deps
from ingress.app import create_app
from ingress.webhooks import deps as webhook_deps
from ingress.webhooks.trigger import TRIGGER_PATH
from schemas.settings import Settings

REPLAY_PATH = "/svc_poweruser/custom-webhooks/replay"


def _calls(dependant: Dependant) -> Iterator[Callable[..., Any]]:
    for child in dependant.dependencies:
        if child.call is not None:
            yield child.call
        yield from _calls(child)


def _api_routes(routes: list[Any]) -> Iterator[APIRoute]:
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        included = getattr(route, "original_router", None)  # an included router keeps its routes there
        if included is not None:
            yield from _api_routes(included.routes)


def _routes() -> dict[str, set[Callable[..., Any]]]:
    app = create_app(Settings.model_construct())
    routes = {route.path: set(_calls(route.dependant)) for route in _api_routes(app.routes)}
    assert len(routes) > 40  # every router's routes were found
    return routes


def test_only_the_trigger_and_the_replay_take_the_trigger_clients() -> None:
    routes = _routes()
    takers = {path for path, calls in routes.items() if webhook_deps.get_trigger_clients in calls}
    assert takers == {TRIGGER_PATH}
    replay = routes[REPLAY_PATH]
    assert {deps.get_sessions, deps.get_publisher, deps.get_committer, deps.get_masker} <= replay


def test_a_route_gets_a_client_only_through_the_dependency_that_names_it() -> None:
    routes = _routes()
    run_now = routes["/clients/scheduled-events/run-now"]
    # The route stores a run (the session factory), sends its tick (the publisher) and reads its limit.
    assert {deps.get_sessions, deps.get_publisher, deps.get_settings} <= run_now
    assert deps.get_store not in run_now and analytics_deps.get_inline_queries not in run_now
    query = routes["/clients/svcdb/analytics/query"]
    assert analytics_deps.get_inline_queries in query
    assert webhook_deps.get_trigger_targets not in query
    assert webhook_deps.get_trigger_targets in routes["/svc_poweruser/custom-webhooks/update"]


def test_every_route_authenticates_through_one_of_the_two_callers_or_none() -> None:
    # The health routes and the signed links (downloads, upload parts) carry no API key.
    keyless = {"/healthz", "/readyz", "/clients/svcdb/analytics/download/{token}"}
    keyless |= {"/clients/svcdb-intake/parts/{token}", TRIGGER_PATH}
    for path, calls in _routes().items():
        if path.startswith("/console"):
            continue  # the console authenticates by its session and calls these routes (docs/console.md)
        callers = calls & {deps.client_principal, deps.poweruser_principal}
        assert (not callers) == (path in keyless), path
