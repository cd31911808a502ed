"""Every change svc makes to third-party code, in one place, applied explicitly when a role starts.

The embedded broker's client patches (the adaptive fetch wait) live in ``sinks/embedded_broker/`` and are
registered here like every other. Each patch names the library version it was written against and what it
replaces. ``apply`` refuses to patch a library whose version moved or whose attribute is gone
(``PatchTargetMoved``), so an upgrade fails loudly at start-up and in tests/unit/test_patches.py instead of
silently undoing a tuning. Importing this module changes nothing.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

BODY_HIGH_WATER_BYTES = 1024 * 1024
"""Request body uvicorn buffers for the app before it stops reading the connection (its own is 64 KiB)."""


class PatchTargetMoved(RuntimeError):
    """A patched library changed: its version is not the one the patch was written for, or the attribute
    it replaces is gone."""


@dataclass(frozen=True, slots=True)
class Patch:
    name: str
    distribution: str  # the PyPI distribution whose code is patched
    version: str  # the version the patch was written for (pinned in pyproject.toml)
    module: str
    owner: str  # attribute path inside the module ("" for the module itself)
    attribute: str
    replacement: Callable[[], Any]  # builds the new value (imported lazily: roles load only what they use)
    why: str

    def target(self) -> Any:
        owner: Any = importlib.import_module(self.module)
        for part in filter(None, self.owner.split(".")):
            owner = getattr(owner, part)
        return owner

    def check(self) -> None:
        installed = importlib.metadata.version(self.distribution)
        if installed != self.version:
            raise PatchTargetMoved(
                f"patch {self.name!r} was written for {self.distribution} {self.version}, found {installed}: "
                "check what it replaces still exists and works the same, then update the patch"
            )
        if not hasattr(self.target(), self.attribute):
            raise PatchTargetMoved(
                f"patch {self.name!r}: {self.module}.{self.owner}.{self.attribute} is gone"
            )

    def apply(self) -> None:
        self.check()
        setattr(self.target(), self.attribute, self.replacement())


def _fetch_noting_records() -> Any:
    from sinks.embedded_broker.fetch_wait import proc_fetch_request_noting_records

    return proc_fetch_request_noting_records


def _actions_with_current_wait() -> Any:
    from sinks.embedded_broker.fetch_wait import get_actions_with_current_wait

    return get_actions_with_current_wait


def _stream_take() -> Any:
    from streams.take import stream_take

    return stream_take()


def _worker_consumer() -> Any:
    from sinks.embedded_broker.fetch_wait import worker_consumer_with_fetch_wait

    return worker_consumer_with_fetch_wait


def _highwater_of_assigned() -> Any:
    from sinks.embedded_broker.consumer_topics import highwater_of_assigned

    return highwater_of_assigned


def _table_manager_on_start() -> Any:
    from streams.faust_pauses import table_manager_on_start

    return table_manager_on_start


def _sentinel_task() -> Any:
    from streams.faust_pauses import sentinel_task

    return sentinel_task


def _attach_nothing(
    fun: Callable[..., Any], category: str, *, callback: Callable[..., None] | None = None, **kwargs: Any
) -> None:
    """Faust's ``venusian.attach`` without the attaching: only autodiscovery reads it, and svc's app has
    ``autodiscover=False``."""


WORKER_PATCHES: tuple[Patch, ...] = (
    Patch(
        name="faust-decorators-skip-venusian",
        distribution="faust-streaming",
        version="0.15.3",
        module="faust.utils.venusian",
        owner="",
        attribute="attach",
        replacement=lambda: _attach_nothing,
        why=(
            "each @app.agent / @app.timer / app.service registered itself for autodiscovery through "
            "venusian, "
            "which looks up the caller's module with inspect.getmodule (a realpath of every loaded module): "
            "0.2 s of the 0.23 s a worker's app took to build, paid at every worker start"
        ),
    ),
    Patch(
        name="fetch-notes-records",
        distribution="aiokafka",
        version="0.14.0",
        module="aiokafka.consumer.fetcher",
        owner="Fetcher",
        attribute="_proc_fetch_request",
        replacement=_fetch_noting_records,
        why="each fetch tells the adaptive fetch wait (sinks/embedded_broker/fetch_wait.py) what it brought",
    ),
    Patch(
        name="fetch-uses-current-wait",
        distribution="aiokafka",
        version="0.14.0",
        module="aiokafka.consumer.fetcher",
        owner="Fetcher",
        attribute="_get_actions_per_node",
        replacement=_actions_with_current_wait,
        why="a fetch waits at the broker as long as the adaptive fetch wait says now, not a fixed time",
    ),
    Patch(
        name="faust-consumer-fetch-wait",
        distribution="faust-streaming",
        version="0.15.3",
        module="faust.transport.drivers.aiokafka",
        owner="AIOKafkaConsumerThread",
        attribute="_create_worker_consumer",
        replacement=_worker_consumer,
        why="Faust's worker consumer gets the adaptive fetch wait instead of its fixed 1.5 s",
    ),
    Patch(
        name="faust-highwater-of-a-revoked-partition",
        distribution="faust-streaming",
        version="0.15.3",
        module="faust.transport.drivers.aiokafka",
        owner="AIOKafkaConsumerThread",
        attribute="highwater",
        replacement=_highwater_of_assigned,
        why=(
            "a partition revoked by a subscription change (a renewal of the embedded broker) while its "
            "fetched records were handed out crashed the worker's fetcher on an assertion of aiokafka"
        ),
    ),
    Patch(
        name="faust-take-waits-for-first-value",
        distribution="faust-streaming",
        version="0.15.3",
        module="faust.streams",
        owner="Stream",
        attribute="take",
        replacement=_stream_take,
        why=(
            "Stream.take(within=...) woke every `within` seconds with nothing to hand over (50 times a "
            "second per batching agent on an idle worker); it now waits for the first value (streams/take.py)"
        ),
    ),
    Patch(
        name="faust-table-manager-starts-at-once",
        distribution="faust-streaming",
        version="0.15.3",
        module="faust.tables.manager",
        owner="TableManager",
        attribute="on_start",
        replacement=_table_manager_on_start,
        why=(
            "the table manager slept 1 s for Faust tables to register before the worker subscribed; svc has "
            "none, and every worker start (a restart, a deploy, each test's worker) waited it"
        ),
    ),
    Patch(
        name="mode-worker-closes-its-loop-at-once",
        distribution="mode-streaming",
        version="0.7.1",
        module="mode.worker",
        owner="Worker",
        attribute="_sentinel_task",
        replacement=_sentinel_task,
        why="a stopping worker slept 1 s after gathering its tasks before closing its loop; now 50 ms",
    ),
)

INGRESS_PATCHES: tuple[Patch, ...] = (
    Patch(
        name="uvicorn-body-high-water",
        distribution="uvicorn",
        version="0.54.0",
        module="uvicorn.protocols.http.httptools_impl",
        owner="",
        attribute="HIGH_WATER_LIMIT",
        replacement=lambda: BODY_HIGH_WATER_BYTES,
        why=(
            "uvicorn stops reading a connection once 64 KiB of its body wait for the app (a module "
            "constant, no setting); at 1 MiB a 1 GB upload costs the ingress 2.3 s of CPU instead of 2.8 "
            "and takes 1.7 s instead of 2.2"
        ),
    ),
)

ALL_PATCHES: tuple[Patch, ...] = WORKER_PATCHES + INGRESS_PATCHES


def apply(patches: tuple[Patch, ...]) -> None:
    """Check every patch first, then apply them all (so a moved target leaves everything as it was)."""
    for patch in patches:
        patch.check()
    for patch in patches:
        patch.apply()
