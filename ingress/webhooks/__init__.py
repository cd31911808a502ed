"""Custom webhooks on the ingress: the public trigger and its steps, replay, and the poweruser API that
manages webhooks."""
