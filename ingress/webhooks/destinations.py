"""``POST /svc_poweruser/destinations/get-all``: the company's handler resources as destinations, with their
circuit, their calls in flight and waiting, and their limits. Company admins only."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter

from ingress.deps import DbSession, PoweruserCaller
from ingress.errors import ApiError
from schemas.base import iso_utc
from schemas.destinations import DestinationAnswer, DestinationsAnswer
from schemas.identity import EmptyRequest
from sinks.db.webhooks import destinations

router = APIRouter(prefix="/svc_poweruser/destinations", tags=["destinations"])


@router.post("/get-all", response_model=DestinationsAnswer, response_model_by_alias=True)
def get_all_destinations(
    caller: PoweruserCaller, session: DbSession, _body: EmptyRequest | None = None
) -> DestinationsAnswer:
    if not caller.is_admin:
        raise ApiError(403, "Only company admins see the destinations")
    now = datetime.now(UTC)
    return DestinationsAnswer(
        destinations=[
            DestinationAnswer(
                resource_id=listed.resource_id,
                name=listed.name,
                type=listed.type,
                state=listed.state.circuit.value,
                since=iso_utc(listed.state.since) or "",
                last_error=listed.state.last_error,
                last_error_at=iso_utc(listed.state.last_error_at),
                in_flight=listed.in_flight,
                waiting=listed.waiting,
                max_concurrency=listed.limits.max_concurrency,
                max_per_second=listed.limits.max_per_second,
                retry_after_until=iso_utc(listed.state.blocked_until) if listed.blocked else None,
                next_probe_at=iso_utc(listed.state.probe_at) if listed.state.probe_at else None,
            )
            for listed in destinations.listing(session, caller.company_id, now)
        ]
    )
