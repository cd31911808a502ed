"""The /query preview of a stored result as JSON text, kept in this process so that the answers a result
gives again (every answer from the result cache shares its source's result) read, render and encode it once.

Only what is fixed once a result is stored is kept, and the key names all of it: the result file
(``result_key``: one file per computing job, written once, never rewritten), its column metadata, row count
and truncation as stored on the job, and how this reader's answer shows masked columns (``reveal`` and, per
table of a masked column, whether the reader may reveal it). Nothing is kept or expires by time. The memo is
consulted only after the read has passed every check a read of the job's output makes
(``job_access.check_output`` under the reader's current grant, and the result not expired), so it never
decides who reads what. The reader's hidden columns are not in the key: a read that passed the check hides
no column of the result from its reader. A preview that shows masked values in plaintext (``reveal`` by a
reader who may) is never kept: masked values stay encrypted everywhere but in the answer that reveals them.

The text is what the framework would write for the preview (pydantic's JSON encoder), and /query's answer is
written with it spliced in (:func:`answer_text`): encoding 200 rows of unknown types cost more than anything
else in an answer from the cache.

Bound (per ingress process): 256 previews and 32 MiB of their JSON text; a preview over 2 MiB is not kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic_core import to_json

from core.lru import Lru, SizeBounds

PREVIEW_MEMO_SIZES = SizeBounds(total_bytes=32 * 2**20, entry_bytes=2 * 2**20)


@dataclass(frozen=True)
class PreviewKey:
    company_id: str
    result_key: str
    result_columns: str  # the job's stored column metadata, as stored
    total_rows: int
    truncated: bool
    reveal: bool
    revealable: tuple[tuple[str, bool], ...]  # by table id of a masked column, sorted

    @classmethod
    def of(
        cls,
        company_id: str,
        result_key: str,
        stored: tuple[str, int, bool],
        reveal: bool,
        revealable: dict[str, bool],
    ) -> PreviewKey:
        """``stored``: the job's result column metadata (JSON text), row count and truncation."""
        columns, total, truncated = stored
        return cls(
            company_id, result_key, columns, total, truncated, reveal, tuple(sorted(revealable.items()))
        )


_previews: Lru[PreviewKey, bytes] = Lru(256, sizes=PREVIEW_MEMO_SIZES)


def encode(value: Any) -> bytes:
    """JSON text as the framework writes an answer (pydantic's encoder)."""
    return to_json(value)


def remembered_preview(key: PreviewKey, render: Callable[[], dict[str, Any]]) -> bytes:
    """The JSON text of the preview of ``key``, rendered by ``render`` when this process has not kept it."""
    found = _previews.get(key)
    if found is not None:
        return found
    text = encode(render())
    _previews.put(key, text, len(text))
    return text


def answer_text(answer: dict[str, Any], preview: bytes | None) -> bytes:
    """``answer`` (a JSON object of at least one member) as JSON text, with member ``preview`` set to the
    JSON text ``preview`` (null: None)."""
    head = encode(answer)
    return head[:-1] + b',"preview":' + (b"null" if preview is None else preview) + b"}"


def forget_previews() -> None:
    """Forget every kept preview (tests)."""
    _previews.clear()
