"""Request dependencies, one ``Annotated`` alias per shared client, so that each route's signature shows
what it uses: ``ClientCaller``, ``PoweruserCaller``, ``DbSession`` and the ``*Dep`` clients.

Each client is read from ``app.state``, where the lifespan (``ingress/app.py``) puts it. A room's own
clients have their aliases in the room (``ingress/webhooks/deps.py``, ``ingress/analytics/deps.py``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Annotated, Any

from fastapi import Depends, Request
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from ingress.auth_throttle import FLUSH_WAIT_SECONDS, LOCKED_OUT, AuthThrottle, peer_address, poweruser_key_id
from ingress.errors import ApiError
from ingress.ratelimit import RateLimiter, RowQuota
from schemas.admin import Principal
from schemas.enums import KeyKind
from schemas.settings import Settings
from sinks.db import tenancy
from sinks.db.group_commit import GroupCommitter
from sinks.iceberg.masking import Masker
from sinks.iceberg.read_cache import TableReads
from sinks.kafka import Publisher
from sinks.objectstore import ObjectStore

Sessions = sessionmaker[Session]
"""The session factory's type, for the helpers a route hands it to."""

MISSING_KEY = "Missing API key: send it as-is in the Authorization header"
IN_PROCESS_CALLERS = "svc.in_process_callers"
"""The ASGI scope key under which an in-process call (the console's, ingress/console/api.py) names who it
acts as, by key kind: a ``dict[str, Principal]`` already verified by its caller. Only code in this process
can set a scope key, so no HTTP request can claim it."""
INVALID_KEY = "Invalid API key"

# The getters are coroutines so that FastAPI calls them on the event loop rather than sending each to a
# worker thread, as it does with a plain function.


async def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def get_engine(request: Request) -> Engine:
    engine: Engine = request.app.state.engine
    return engine


async def get_sessions(request: Request) -> Sessions:
    sessions: Sessions = request.app.state.sessions
    return sessions


async def get_publisher(request: Request) -> Publisher:
    publisher: Publisher = request.app.state.publisher
    return publisher


async def get_committer(request: Request) -> GroupCommitter:
    committer: GroupCommitter = request.app.state.committer
    return committer


async def get_catalog(request: Request) -> Any:
    return request.app.state.catalog


async def get_masker(request: Request) -> Masker:
    masker: Masker = request.app.state.masker
    return masker


async def get_store(request: Request) -> ObjectStore:
    store: ObjectStore = request.app.state.store
    return store


async def get_reads(request: Request) -> TableReads:
    reads: TableReads = request.app.state.reads
    return reads


async def get_append_quota(request: Request) -> RowQuota:
    quota: RowQuota = request.app.state.append_quota
    return quota


async def get_limiter(request: Request) -> RateLimiter:
    limiter: RateLimiter = request.app.state.limiter
    return limiter


async def get_auth_throttle(request: Request) -> AuthThrottle:
    throttle: AuthThrottle = request.app.state.auth_throttle
    return throttle


SettingsDep = Annotated[Settings, Depends(get_settings)]
EngineDep = Annotated[Engine, Depends(get_engine)]
# The session factory, for a route that opens its own sessions or transactions; DbSession is one transaction.
SessionsDep = Annotated[Sessions, Depends(get_sessions)]
PublisherDep = Annotated[Publisher, Depends(get_publisher)]
CommitterDep = Annotated[GroupCommitter, Depends(get_committer)]
# The Iceberg catalog: pyiceberg's catalogs share no narrower type than Any here.
CatalogDep = Annotated[Any, Depends(get_catalog)]
MaskerDep = Annotated[Masker, Depends(get_masker)]
StoreDep = Annotated[ObjectStore, Depends(get_store)]
ReadsDep = Annotated[TableReads, Depends(get_reads)]
AppendQuotaDep = Annotated[RowQuota, Depends(get_append_quota)]
LimiterDep = Annotated[RateLimiter, Depends(get_limiter)]
AuthThrottleDep = Annotated[AuthThrottle, Depends(get_auth_throttle)]


def db_session(sessions: SessionsDep) -> Iterator[Session]:
    """One transaction per request: committed when the route returns, rolled back when it raises."""
    with sessions.begin() as session:
        yield session


# scope="function": the commit happens before the response is sent, so a 2xx always means committed.
DbSession = Annotated[Session, Depends(db_session, scope="function")]


def presented_key(request: Request) -> str:
    value = request.headers.get("authorization", "").strip()
    if not value:
        raise ApiError(401, MISSING_KEY)
    return value


def _rate_limited(request: Request, limiter: RateLimiter, principal: Principal) -> Principal:
    # On a worker thread (the dependencies are plain functions), so a hit may wait briefly for a flush.
    decision = limiter.hit(principal.key_id, time.time(), wait_seconds=FLUSH_WAIT_SECONDS)
    headers = decision.headers()
    request.state.rate_headers = headers
    if not decision.allowed:
        raise ApiError(429, "Rate limit exceeded; retry after the time in Retry-After", headers=headers)
    return principal


def _in_process(request: Request, kind: KeyKind) -> Principal | None:
    callers: dict[str, Principal] | None = request.scope.get(IN_PROCESS_CALLERS)
    if callers is None:
        return None
    principal = callers.get(kind.value)
    if principal is None:  # the console's user has no enabled key of this kind
        raise ApiError(401, INVALID_KEY)
    return principal


def _authenticator(
    lookup: Callable[[Session, str], Principal | None], key_id_of: Callable[[str], str | None], kind: KeyKind
) -> Callable[..., Principal]:
    def authenticate(
        request: Request, sessions: SessionsDep, throttle: AuthThrottleDep, limiter: LimiterDep
    ) -> Principal:
        acting = _in_process(request, kind)
        if acting is not None:
            return _rate_limited(request, limiter, acting)
        key = presented_key(request)
        address, key_id = peer_address(request), key_id_of(key)
        # While locked out the key is not even checked: a right key gets the same 429 as a wrong one.
        locked = throttle.lockout(address, key_id, time.time(), wait_seconds=FLUSH_WAIT_SECONDS)
        if locked is not None:
            raise ApiError(
                429,
                f"{LOCKED_OUT}; retry after the time in Retry-After",
                headers={"Retry-After": str(locked)},
            )
        with sessions() as session:
            principal = lookup(session, key)
        if principal is None:
            throttle.failed(address, key_id, time.time())
            raise ApiError(401, INVALID_KEY)
        return _rate_limited(request, limiter, principal)

    return authenticate


def _no_key_id(_key: str) -> None:
    """Client keys are opaque: only their address counts failures."""
    return None


client_principal = _authenticator(tenancy.authenticate_client_key, _no_key_id, KeyKind.CLIENT)
poweruser_principal = _authenticator(tenancy.authenticate_poweruser_key, poweruser_key_id, KeyKind.POWERUSER)

ClientCaller = Annotated[Principal, Depends(client_principal)]
PoweruserCaller = Annotated[Principal, Depends(poweruser_principal)]
