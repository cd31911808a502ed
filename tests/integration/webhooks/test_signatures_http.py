"""The documented GitHub, Stripe and Slack signature checks, on the real trigger URL with real time."""

import time

import pytest

from tests.fixtures.stack import Ingress
from tests.integration.sandbox.test_signature_scripts import (
    GITHUB_PLACEHOLDER,
    SLACK_PLACEHOLDER,
    STRIPE_PLACEHOLDER,
    documented_script,
    sign,
)
from tests.integration.webhooks.conftest import World
from tests.integration.webhooks.delivery_helpers import TRIGGER

pytestmark = pytest.mark.integration

SECRET = "provider-signing-secret"
BODY = '{"id":"evt_42","amount":1999,"note":"café"}'


def guarded(world: World, name: str, placeholder: str) -> tuple[str, str]:
    script = documented_script(name, placeholder, SECRET)
    config = {"name": name, "validationConfig": {"enableValidation": True, "validationScript": script}}
    created = world.api.create(world.owner, config)
    return created["webhook"]["id"], created["apiKey"]


def post(ingress: Ingress, webhook_id: str, key: str, headers: dict[str, str], body: str = BODY) -> int:
    answer = ingress.client.post(
        TRIGGER,
        params={"resourceId": webhook_id},
        headers={"Authorization": key, "Content-Type": "application/json", **headers},
        content=body.encode(),
    )
    return answer.status_code


def test_github(world: World, ingress: Ingress) -> None:
    webhook_id, key = guarded(world, "github", GITHUB_PLACEHOLDER)
    genuine = {"X-Hub-Signature-256": "sha256=" + sign(SECRET, BODY)}
    assert post(ingress, webhook_id, key, genuine) == 202
    assert post(ingress, webhook_id, key, {"X-Hub-Signature-256": "sha256=" + sign("forged", BODY)}) == 401
    assert post(ingress, webhook_id, key, genuine, body=BODY.replace("1999", "9999")) == 401
    assert post(ingress, webhook_id, key, {}) == 401


def test_stripe(world: World, ingress: Ingress) -> None:
    webhook_id, key = guarded(world, "stripe", STRIPE_PLACEHOLDER)
    now = int(time.time())
    genuine = {"Stripe-Signature": f"t={now},v1={sign(SECRET, f'{now}.{BODY}')}"}
    assert post(ingress, webhook_id, key, genuine) == 202
    forged = {"Stripe-Signature": f"t={now},v1={sign('forged', f'{now}.{BODY}')}"}
    assert post(ingress, webhook_id, key, forged) == 401
    stale = now - 301
    replayed = {"Stripe-Signature": f"t={stale},v1={sign(SECRET, f'{stale}.{BODY}')}"}
    assert post(ingress, webhook_id, key, replayed) == 401
    assert post(ingress, webhook_id, key, genuine, body=BODY + " ") == 401


def test_slack(world: World, ingress: Ingress) -> None:
    webhook_id, key = guarded(world, "slack", SLACK_PLACEHOLDER)
    now = int(time.time())

    def signed(at: int, secret: str = SECRET) -> dict[str, str]:
        return {
            "X-Slack-Request-Timestamp": str(at),
            "X-Slack-Signature": "v0=" + sign(secret, f"v0:{at}:{BODY}"),
        }

    assert post(ingress, webhook_id, key, signed(now)) == 202
    assert post(ingress, webhook_id, key, signed(now, "forged")) == 401
    assert post(ingress, webhook_id, key, signed(now - 400)) == 401
