"""Structured JSON logs on stderr. Callers pass ids and counts in ``extra``; never a key or a secret."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

_STANDARD = set(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime", "taskName"}
_REDACT = ("authorization", "apikey", "api_key", "secret", "password", "token", "privatevariables")


def _safe(key: str, value: Any) -> Any:
    if any(marker in key.lower().replace("-", "_") for marker in _REDACT):
        return "[redacted]"
    return value


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = _safe(key, value)
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def configure(level: str = "INFO", role: str = "svc") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    logging.getLogger("svc").info("logging configured", extra={"role": role})
    # aiokafka logs every reconnect attempt at WARNING/ERROR while a broker starts; keep the signal readable.
    logging.getLogger("aiokafka").setLevel(max(logging.WARNING, root.level))


def dict_config(level: str = "INFO") -> dict[str, Any]:
    """The same JSON format as a ``logging.config.dictConfig`` (the Faust worker takes one)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": f"{__name__}.JsonFormatter"}},
        "handlers": {
            "stderr": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
        },
        "root": {"level": level.upper(), "handlers": ["stderr"]},
        "loggers": {"aiokafka": {"level": "WARNING"}},
    }
