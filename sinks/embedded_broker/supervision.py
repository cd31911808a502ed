"""What ``svc up`` does for the embedded broker beside starting its process: it owns the generation signal
(``generations.py``), says the broker is away while a crashed one starts again, and runs the renewals
(``watch.py``, ``rotation.py``). The supervisor holds one of these and never reads the signal itself."""

from __future__ import annotations

import asyncio
import logging
import subprocess
from collections.abc import Callable
from pathlib import Path

from aiokafka.errors import KafkaError

from schemas.settings import Settings
from sinks.embedded_broker.generations import GenerationNotice, Generations
from sinks.embedded_broker.rotation import RenewalAborted, RenewalTimes, renew
from sinks.embedded_broker.watch import BrokerWatch

log = logging.getLogger(__name__)
SIGNAL_FILE = "broker-generations"


class BrokerSupervision:
    def __init__(self, data_dir: Path) -> None:
        self.notice = GenerationNotice(data_dir / SIGNAL_FILE)

    @property
    def signal_path(self) -> Path:
        """The file the children read (``SVC_EMBEDDED_BROKER_SIGNAL_FILE``)."""
        return self.notice.path

    def produce_generation(self) -> int:
        """The generation producers write to now: a (re)started broker creates its topics."""
        return self.notice.current.produce

    def broker_away(self, away: bool) -> None:
        """A crashed broker is away until it is started again; the new one has the producers' generation only,
        so a renewal under way stops at its next step."""
        if away:
            produce = self.notice.current.produce
            self.notice.set(Generations(produce, produce, produce, away=True))
        else:
            self.notice.set_away(False)

    def renewal_watch(
        self, resolved: Settings, broker_process: Callable[[], subprocess.Popen[bytes]]
    ) -> BrokerWatch:
        """The broker's watch, renewing it in its own thread when it grows too long."""
        times = RenewalTimes(drain_seconds=resolved.embedded_broker_renew_drain_seconds)
        notice = self.notice

        def renew_now() -> None:
            try:
                asyncio.run(renew(resolved, notice, times))
            except (RenewalAborted, KafkaError, OSError) as exc:
                # The broker crashed or stopped answering: its restart (or the next check) takes it from here.
                log.warning(
                    "embedded broker renewal stopped", extra={"reason": f"{type(exc).__name__}: {exc}"}
                )

        return BrokerWatch(resolved, broker_process, notice, renew_now)
