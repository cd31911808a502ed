"""Request dependencies, named once: ``ClientCaller``, ``PoweruserCaller``, ``DbSession``, ``Svc``."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from ingress.auth_throttle import FLUSH_WAIT_SECONDS, LOCKED_OUT, peer_address, poweruser_key_id
from ingress.errors import ApiError
from ingress.state import Services
from schemas.admin import Principal
from sinks.db import tenancy

MISSING_KEY = "Missing API key: send it as-is in the Authorization header"
INVALID_KEY = "Invalid API key"


def services(request: Request) -> Services:
    svc: Services = request.app.state.services
    return svc


Svc = Annotated[Services, Depends(services)]


def db_session(svc: Svc) -> Iterator[Session]:
    """One transaction per request: committed when the route returns, rolled back when it raises."""
    with svc.sessions.begin() as session:
        yield session


# scope="function": the commit happens before the response is sent, so a 2xx always means committed.
DbSession = Annotated[Session, Depends(db_session, scope="function")]


def presented_key(request: Request) -> str:
    value = request.headers.get("authorization", "").strip()
    if not value:
        raise ApiError(401, MISSING_KEY)
    return value


def _rate_limited(request: Request, svc: Services, principal: Principal) -> Principal:
    # On a worker thread (the dependencies are plain functions), so a hit may wait briefly for a flush.
    decision = svc.limiter.hit(principal.key_id, time.time(), wait_seconds=FLUSH_WAIT_SECONDS)
    headers = decision.headers()
    request.state.rate_headers = headers
    if not decision.allowed:
        raise ApiError(429, "Rate limit exceeded; retry after the time in Retry-After", headers=headers)
    return principal


def _authenticator(
    lookup: Callable[[Session, str], Principal | None], key_id_of: Callable[[str], str | None]
) -> Callable[..., Principal]:
    def authenticate(request: Request, svc: Svc) -> Principal:
        key = presented_key(request)
        address, key_id = peer_address(request), key_id_of(key)
        # While locked out the key is not even checked: a right key gets the same 429 as a wrong one.
        locked = svc.auth_throttle.lockout(address, key_id, time.time(), wait_seconds=FLUSH_WAIT_SECONDS)
        if locked is not None:
            raise ApiError(
                429,
                f"{LOCKED_OUT}; retry after the time in Retry-After",
                headers={"Retry-After": str(locked)},
            )
        with svc.sessions() as session:
            principal = lookup(session, key)
        if principal is None:
            svc.auth_throttle.failed(address, key_id, time.time())
            raise ApiError(401, INVALID_KEY)
        return _rate_limited(request, svc, principal)

    return authenticate


def _no_key_id(_key: str) -> None:
    """Client keys are opaque: only their address counts failures."""
    return None


client_principal = _authenticator(tenancy.authenticate_client_key, _no_key_id)
poweruser_principal = _authenticator(tenancy.authenticate_poweruser_key, poweruser_key_id)

ClientCaller = Annotated[Principal, Depends(client_principal)]
PoweruserCaller = Annotated[Principal, Depends(poweruser_principal)]
