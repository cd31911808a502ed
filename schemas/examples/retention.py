"""Examples of the retention API's request bodies (docs/interface.md#retention)."""

from __future__ import annotations

from pydantic.config import JsonDict

UPDATE_RETENTION: JsonDict = {
    "examples": [
        # Keep the execution history a week and finished jobs a day; runs keep their value.
        {"historySeconds": 604800, "jobsSeconds": 86400},
        # Ninety days for scheduled runs (null instead of a number goes back to the service's setting).
        {"runsSeconds": 7776000},
    ]
}
