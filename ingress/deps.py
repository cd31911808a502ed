"""Request dependencies, named once: ``ClientCaller``, ``PoweruserCaller``, ``DbSession``, ``Svc``."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

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
    decision = svc.limiter.hit(principal.key_id, time.time())
    headers = decision.headers()
    request.state.rate_headers = headers
    if not decision.allowed:
        raise ApiError(429, "Rate limit exceeded; retry after the time in Retry-After", headers=headers)
    return principal


def _authenticator(lookup: Callable[[Session, str], Principal | None]) -> Callable[..., Principal]:
    def authenticate(request: Request, svc: Svc) -> Principal:
        key = presented_key(request)
        with svc.sessions() as session:
            principal = lookup(session, key)
        if principal is None:
            raise ApiError(401, INVALID_KEY)
        return _rate_limited(request, svc, principal)

    return authenticate


client_principal = _authenticator(tenancy.authenticate_client_key)
poweruser_principal = _authenticator(tenancy.authenticate_poweruser_key)

ClientCaller = Annotated[Principal, Depends(client_principal)]
PoweruserCaller = Annotated[Principal, Depends(poweruser_principal)]
