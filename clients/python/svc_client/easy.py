"""The thin hand-written layer over the generated client: what the API makes laborious in one call each.

- ``SvcClient.trigger``: trigger a webhook with its own key (the trigger is one URL for every webhook);
- ``SvcClient.history``: every history entry of a webhook, page after page;
- ``SvcClient.query`` / ``wait_for_job`` / ``result_rows``: run a query, wait for its job, iterate its rows
  (``append_rows`` adds rows the same way);
- ``SvcClient.upload``: a file through the multipart intake, in parts; answers its ``s3Uri``.

It is never overwritten by ``make client``: the generated modules are ``api/``, ``models/``, ``client.py``,
``errors.py`` and ``types.py``."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from svc_client.api.custom_webhooks import (
    get_execution_history_svc_poweruser_custom_webhooks_get_execution_history_post as history_call,
)
from svc_client.client import AuthenticatedClient
from svc_client.models.execution_entry import ExecutionEntry
from svc_client.models.execution_status import ExecutionStatus
from svc_client.models.history_answer import HistoryAnswer
from svc_client.models.history_request import HistoryRequest

FINAL_JOB_STATES = frozenset({"SUCCEEDED", "FAILED", "CANCELLED", "TIMED_OUT"})
TRIGGER_PATH = "/clients/custom-webhooks"
# The API's own bounds: a history page holds at most 100 entries, a results page at most 1,000 rows, and one
# job-status call waits at most 20 s.
HISTORY_PAGE_MAX = 100
RESULTS_PAGE_MAX = 1000
STATUS_WAIT_MAX_MS = 20_000
DEFAULT_PART_BYTES = 16 * 1024 * 1024


class SvcError(Exception):
    """An answer of 400 or more: its status and the API's ``errors`` (or ``error``) messages."""

    def __init__(self, status: int, errors: list[str]) -> None:
        super().__init__(f"{status}: {'; '.join(errors) or 'no message'}")
        self.status = status
        self.errors = errors


def answer_json(response: httpx.Response) -> dict[str, Any]:
    """The body of a JSON answer; ``SvcError`` for a status of 400 or more."""
    try:
        parsed: Any = response.json()
    except ValueError:
        parsed = {"errors": [response.text[:500]]}
    body: dict[str, Any] = parsed if isinstance(parsed, dict) else {"value": parsed}
    if response.status_code >= 400:
        messages = body.get("errors") or ([body["error"]] if body.get("error") else [])
        raise SvcError(response.status_code, [str(message) for message in messages])
    return body


def part_count(size: int, part_bytes: int) -> int:
    """How many parts an upload of ``size`` bytes takes (one at least: an empty file is one empty part)."""
    return max(1, -(-size // part_bytes))


@dataclass
class SvcClient:
    """One svc, with the keys a caller holds: ``client_key`` for ``/clients/...``, ``poweruser_key`` for
    ``/svc_poweruser/...``. Either may be None when its calls are not used."""

    base_url: str
    client_key: str | None = None
    poweruser_key: str | None = None
    timeout: float = 30.0
    _clients: dict[str, AuthenticatedClient] = field(default_factory=dict, init=False, repr=False)

    def authenticated(self, key: str | None) -> AuthenticatedClient:
        """The generated client for ``key``: the key goes in ``Authorization`` as issued, with no prefix."""
        if key is None:
            raise ValueError("this call needs a key the client was not given")
        if key not in self._clients:
            self._clients[key] = AuthenticatedClient(
                base_url=self.base_url, token=key, prefix="", timeout=httpx.Timeout(self.timeout)
            )
        return self._clients[key]

    def close(self) -> None:
        for client in self._clients.values():
            client.get_httpx_client().close()
        self._clients.clear()

    def __enter__(self) -> SvcClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _post(self, key: str | None, path: str, body: Mapping[str, Any], **params: str) -> dict[str, Any]:
        http = self.authenticated(key).get_httpx_client()
        return answer_json(http.post(path, json=dict(body), params=params))

    # Webhooks

    def trigger(
        self,
        webhook_id: str,
        webhook_key: str,
        payload: Any = None,
        *,
        method: str = "POST",
        headers: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> dict[str, Any]:
        """Trigger ``webhook_id`` with its own key (``wh:...``); ``payload`` is sent as JSON. Answers the
        trigger's body: ``executionId`` (202), ``filtered`` or ``duplicate`` (200)."""
        sent = dict(headers or {})
        sent["Authorization"] = webhook_key
        if idempotency_key is not None:
            sent["Idempotency-Key"] = idempotency_key
        with httpx.Client(base_url=self.base_url, timeout=self.timeout) as http:
            response = http.request(
                method, TRIGGER_PATH, params={"resourceId": webhook_id}, headers=sent, json=payload
            )
        return answer_json(response)

    def history_page(
        self, webhook_id: str, page: int = 0, size: int = HISTORY_PAGE_MAX, status: str | None = None
    ) -> HistoryAnswer:
        """One page of a webhook's history, newest first (the generated call, typed)."""
        body = HistoryRequest(webhook_id=webhook_id, page=page, size=size)
        if status is not None:
            body.status = ExecutionStatus(status)
        response = history_call.sync_detailed(client=self.authenticated(self.poweruser_key), body=body)
        if not isinstance(response.parsed, HistoryAnswer):
            raise SvcError(response.status_code, [response.content.decode(errors="replace")[:500]])
        return response.parsed

    def history(self, webhook_id: str, status: str | None = None) -> Iterator[ExecutionEntry]:
        """Every history entry of ``webhook_id`` (of ``status`` only, when given), newest first."""
        page = 0
        while True:
            answer = self.history_page(webhook_id, page, HISTORY_PAGE_MAX, status)
            yield from answer.history
            page += 1
            if page >= answer.total_pages:
                return

    # Analytics

    def query(self, table_id: str, sql: str, wait_ms: int = 0, **options: Any) -> dict[str, Any]:
        """Submit a query (``options``: ``maxRows``, ``requestId``, ``useQueryCache``, ...); answers
        ``jobId`` and ``state``, and the job's end when it came within ``wait_ms``."""
        body = {"tableId": table_id, "sql": sql, "waitMs": wait_ms, **options}
        return self._post(self.client_key, "/clients/svcdb/analytics/query", body, resourceId=table_id)

    def append_rows(self, table_id: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
        """Append ``rows`` (at most the API's batch) to a table; answers ``accepted`` and the append's
        ``loadId``, a job to wait for like a query's."""
        body = {"tableId": table_id, "rows": rows}
        return self._post(self.client_key, "/clients/svcdb/analytics/append-rows", body, resourceId=table_id)

    def job_status(self, table_id: str, job_id: str, wait_ms: int = 0) -> dict[str, Any]:
        body = {"tableId": table_id, "jobId": job_id, "waitMs": wait_ms}
        return self._post(self.client_key, "/clients/svcdb/analytics/job-status", body, resourceId=table_id)

    def wait_for_job(
        self,
        table_id: str,
        job_id: str,
        timeout: float = 300.0,
        on_status: Callable[[dict[str, Any]], object] | None = None,
    ) -> dict[str, Any]:
        """The job's status once it ended (``state`` one of ``FINAL_JOB_STATES``); each call waits at the
        server (long polling), and ``on_status`` sees every status on the way. ``TimeoutError`` after
        ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            left_ms = int((deadline - time.monotonic()) * 1000)
            status = self.job_status(table_id, job_id, max(0, min(STATUS_WAIT_MAX_MS, left_ms)))
            if on_status is not None:
                on_status(status)
            if status["state"] in FINAL_JOB_STATES:
                return status
            if time.monotonic() >= deadline:
                raise TimeoutError(f"job {job_id} is still {status['state']} after {timeout:.0f} s")

    def result_pages(
        self, table_id: str, job_id: str, page_size: int = RESULTS_PAGE_MAX
    ) -> Iterator[dict[str, Any]]:
        """Each page of a succeeded job's result (``columns``, ``rows``, ``page``, ``totalRows``, ...)."""
        page = 0
        while True:
            body = {"tableId": table_id, "jobId": job_id, "page": page, "pageSize": page_size}
            answer = self._post(
                self.client_key, "/clients/svcdb/analytics/job-results", body, resourceId=table_id
            )
            yield answer
            if not answer.get("hasMore"):
                return
            page += 1

    def result_rows(
        self, table_id: str, job_id: str, page_size: int = RESULTS_PAGE_MAX
    ) -> Iterator[dict[str, Any]]:
        """Every row of a succeeded job's result, page after page."""
        for answer in self.result_pages(table_id, job_id, page_size):
            yield from answer["rows"]

    # Uploads

    def upload(self, path: Path, part_bytes: int = DEFAULT_PART_BYTES) -> str:
        """Upload ``path`` through the multipart intake, one signed PUT per part; answers its ``s3Uri`` (for
        ``/load-from-s3``). A failed part aborts the upload."""
        size = path.stat().st_size
        started = self._post(
            self.client_key, "/clients/svcdb-intake/multipart-initiate", {"fileName": path.name}
        )
        ids = {"uploadId": started["uploadId"], "s3Key": started["s3Key"]}
        numbers = list(range(1, part_count(size, part_bytes) + 1))
        try:
            links = self._post(
                self.client_key,
                "/clients/svcdb-intake/multipart-part-urls",
                {**ids, "partNumbers": numbers},
            )["partUrls"]
            etags: dict[str, str] = {}
            with httpx.Client(timeout=max(self.timeout, 300.0)) as parts, path.open("rb") as source:
                for number in numbers:
                    sent = parts.put(links[str(number)], content=source.read(part_bytes))
                    if sent.status_code >= 400:
                        answer_json(sent)
                    etags[str(number)] = str(sent.headers["ETag"])
            done = self._post(
                self.client_key, "/clients/svcdb-intake/multipart-complete", {**ids, "partETags": etags}
            )
        except (SvcError, httpx.HTTPError):
            self._post(self.client_key, "/clients/svcdb-intake/multipart-abort", ids)
            raise
        return str(done["s3Uri"])
