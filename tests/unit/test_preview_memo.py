"""The preview memo (ingress/analytics/preview_memo.py): a preview is rendered and encoded once per result
file, its stored shape and way of showing masked columns, and any of those changing is another preview; the
answer is written with the kept text spliced in, as the framework would have written it whole."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from ingress.analytics.preview_memo import (
    PREVIEW_MEMO_SIZES,
    PreviewKey,
    answer_text,
    encode,
    forget_previews,
    remembered_preview,
)

pytestmark = pytest.mark.unit

COLUMNS = '[{"name": "note", "type": "STRING", "masked": true, "tableId": "t1", "maskStrategy": "FULL"}]'


@pytest.fixture(autouse=True)
def _empty() -> Iterator[None]:
    forget_previews()
    yield
    forget_previews()


def key(**changes: Any) -> PreviewKey:
    fields: dict[str, Any] = {
        "company_id": "c1",
        "result_key": "results/c1/j1.parquet",
        "stored": (COLUMNS, 4, False),
        "reveal": False,
        "revealable": {"t1": False},
    }
    fields.update(changes)
    return PreviewKey.of(**fields)


class Renderer:
    def __init__(self, note: str = "••••") -> None:
        self.calls = 0
        self.note = note

    def __call__(self) -> dict[str, Any]:
        self.calls += 1
        return {
            "columns": [{"name": "note"}],
            "rows": [{"note": self.note}],
            "totalRows": 1,
            "truncated": False,
        }


def test_a_preview_is_rendered_once() -> None:
    render = Renderer()
    first = remembered_preview(key(), render)
    assert remembered_preview(key(), render) == first and render.calls == 1
    assert json.loads(first) == Renderer()()


@pytest.mark.parametrize(
    "changes",
    [
        {"company_id": "c2"},
        {"result_key": "results/c1/j2.parquet"},
        {"stored": (COLUMNS.replace("FULL", "LAST4"), 4, False)},
        {"stored": (COLUMNS, 5, False)},
        {"stored": (COLUMNS, 4, True)},
        {"reveal": True},
        {"revealable": {"t1": True}},
        {"revealable": {}},
    ],
)
def test_anything_that_shapes_the_preview_is_another_preview(changes: dict[str, Any]) -> None:
    render = Renderer()
    remembered_preview(key(), render)
    remembered_preview(key(**changes), render)
    assert render.calls == 2


def test_the_revealable_map_is_keyed_whatever_its_order() -> None:
    both = {"t1": True, "t2": False}
    assert key(revealable=both) == key(revealable=dict(reversed(both.items())))


def test_a_preview_over_the_entry_bound_is_rendered_every_time() -> None:
    render = Renderer("x" * PREVIEW_MEMO_SIZES.entry_bytes)
    remembered_preview(key(), render)
    remembered_preview(key(), render)
    assert render.calls == 2


@pytest.mark.parametrize("preview", [Renderer('é ☃ "quoted"')(), None])
def test_the_answer_is_the_json_the_whole_would_encode_to(preview: dict[str, Any] | None) -> None:
    answer: dict[str, Any] = {"jobId": "j1", "state": "SUCCEEDED", "error": None, "errors": []}
    text = answer_text(answer, None if preview is None else encode(preview))
    assert text == encode(answer | {"preview": preview})
    assert json.loads(text) == answer | {"preview": preview}
