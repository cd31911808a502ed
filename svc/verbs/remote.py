"""One running svc, reached over HTTP with one key: the calls every verb makes."""

from __future__ import annotations

import json
from typing import Any

import httpx


class RemoteError(Exception):
    """An answer of 400 or more, or no answer: one line for the user."""


def error_messages(status: int, text: str) -> str:
    """The messages of an error answer (``errors`` or ``error``), or its first characters."""
    try:
        body = json.loads(text)
    except ValueError:
        return f"{status}: {text[:300]}"
    if isinstance(body, dict):
        messages = body.get("errors") or ([body["error"]] if body.get("error") else [])
        if messages:
            return f"{status}: {'; '.join(str(message) for message in messages)}"
    return f"{status}: {text[:300]}"


class Remote:
    def __init__(self, url: str, key: str | None, timeout: float = 30.0) -> None:
        if not key:
            raise RemoteError("no key: pass --key or set SVC_KEY")
        self.client = httpx.Client(base_url=url, headers={"Authorization": key}, timeout=timeout)

    def post(self, path: str, body: dict[str, Any], **params: str) -> dict[str, Any]:
        try:
            response = self.client.post(path, json=body, params=params)
        except httpx.HTTPError as exc:
            raise RemoteError(f"{self.client.base_url} did not answer: {type(exc).__name__}") from exc
        if response.status_code >= 400:
            raise RemoteError(error_messages(response.status_code, response.text))
        answer: dict[str, Any] = response.json()
        return answer

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> Remote:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
