"""Handing committed work to the workers: a publish whose failure is not the caller's to retry.

/query, /load-from-s3 and /append-rows first commit their work to the metadata database (a QUEUED job, a
PENDING write) and then publish a record that wakes a worker. Once the commit is through the work is
accepted: the reconcilers publish again whatever is still waiting after ``SVC_QUEUED_GRACE_SECONDS``. A broker
that does not acknowledge the record therefore only delays the work, and answering 503 would be wrong: a
client that retried would have its rows appended, or its load run, twice. The caller gets its normal answer
and the work starts once the reconciler republishes it.
"""

from __future__ import annotations

import logging

from schemas.records import Record
from sinks.exceptions import BrokerAway, BrokerUnavailable
from sinks.kafka import Publisher

log = logging.getLogger(__name__)


async def hand_off(publisher: Publisher, record: Record, *, key: str) -> bool:
    """Publish ``record``; False (logged) when the broker did not acknowledge it and the reconciler will."""
    try:
        await publisher.publish_record(record, key=key)
    except BrokerAway:
        # `svc up` is starting the embedded broker again: the workers started on it take the work up.
        log.info("committed work left to the reconciler: the broker is away", extra={"key": key})
        return False
    except BrokerUnavailable as exc:
        log.warning(
            "committed work left to the reconciler: the broker did not acknowledge its record",
            extra={"record": type(record).__name__, "key": key, "error": str(exc)},
        )
        return False
    return True
