"""Publishing the dead-letter records of scheduled runs that ended FAILED (deadLetterConfig), on the leader's
timer: its round claims the owed ones in the DB (sinks/db/scheduled/due.py), then they are published to
``svc.scheduled.dead-letter`` keyed by runId and cleared (sinks/db/scheduled/retries.py explains the claim
and why this is at least once)."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from functools import partial

from sinks.db.group_commit import GroupCommitter
from sinks.db.scheduled import retries as scheduled_retries
from sinks.kafka import Publisher

log = logging.getLogger(__name__)
# A claimed record not cleared within this long (its publisher died) is published again.
CLAIM_LEASE = timedelta(seconds=30)
BATCH = 500


async def publish_claimed(
    committer: GroupCommitter, publisher: Publisher, owed: list[scheduled_retries.OwedDeadLetter]
) -> int:
    """Publish the records a round claimed, then clear them; how many it published."""
    if not owed:
        return 0
    # A failed send leaves every claim of the round in place: the round after the lease publishes them.
    await asyncio.gather(*(publisher.publish_record(item.record, key=item.record.run_id) for item in owed))
    await committer.run(partial(scheduled_retries.clear_dead_letters, published=owed))
    log.info("published scheduled dead letters", extra={"count": len(owed)})
    return len(owed)
