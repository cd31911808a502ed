"""Scheduled events on the ingress: the client API (create, update, pause, run-now, backfill, preview) and
its checks."""
