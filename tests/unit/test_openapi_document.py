"""docs/openapi.json is the document the ingress serves: a change to the interface changes the committed file
(`make openapi`), so a reviewer sees the contract's diff."""

from __future__ import annotations

import json
from pathlib import Path

from svc.cli import main, openapi_document

COMMITTED = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"


def test_the_committed_document_is_the_one_the_ingress_serves() -> None:
    assert COMMITTED.read_text() == openapi_document(), "the interface changed: run `make openapi` and commit"


def test_svc_openapi_prints_the_document(capsys: object) -> None:
    assert main(["openapi"]) == 0
    printed = capsys.readouterr().out  # type: ignore[attr-defined]
    assert json.loads(printed) == json.loads(COMMITTED.read_text())
    assert printed.endswith("}\n")
