"""Errors the sinks raise; the ingress and the CLI map them to their own answers."""

from __future__ import annotations


class SinkError(Exception):
    """Base of the errors below; the message is safe to show to the caller."""


class NotFound(SinkError):
    pass


class Conflict(SinkError):
    pass


class BrokerUnavailable(SinkError):
    pass


class BrokerAway(BrokerUnavailable):
    """Not tried: ``svc up`` is starting the embedded broker again after a crash
    (sinks/embedded_broker/generations.py)."""
