"""``/whoami`` for both key kinds: lets an integrator check a key without side effects."""

from __future__ import annotations

from fastapi import APIRouter

from ingress.deps import ClientCaller, PoweruserCaller
from schemas.admin import Principal
from schemas.identity import EmptyRequest, WhoAmI

router = APIRouter(tags=["identity"])


def _who(principal: Principal) -> WhoAmI:
    return WhoAmI(
        company_id=principal.company_id,
        user_id=principal.user_id,
        email=principal.email,
        is_admin=principal.is_admin,
        key_type=principal.key_kind,
    )


@router.post("/clients/whoami", response_model=WhoAmI, response_model_by_alias=True)
def client_whoami(caller: ClientCaller, _body: EmptyRequest | None = None) -> WhoAmI:
    return _who(caller)


@router.post("/svc_poweruser/whoami", response_model=WhoAmI, response_model_by_alias=True)
def poweruser_whoami(caller: PoweruserCaller, _body: EmptyRequest | None = None) -> WhoAmI:
    return _who(caller)
