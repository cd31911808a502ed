"""Time travel: a table read as it was, in Trino's syntax.

- ``FROM t FOR VERSION AS OF <snapshotId>``: the snapshot with that id, written as a number or as a string of
  digits (ids are 64-bit, so clients often hold them as strings).
- ``FROM t FOR TIMESTAMP AS OF TIMESTAMP '<timestamp>'``: the snapshot that was current at that moment. The
  literal is ``YYYY-MM-DD[ HH:MM[:SS[.fffffffff]]]`` (a ``T`` may stand for the space) with an optional zone:
  ``UTC``, ``Z``, an offset such as ``+02:00`` or an IANA name; without one it is UTC. Digits past the
  microsecond are dropped.

Anything else after ``FOR`` (BETWEEN, FROM ... TO, an expression, a bare string, a DATE) is
FORBIDDEN_CONSTRUCT; a timestamp literal that is not a valid timestamp is PARSE_ERROR.

Each reference of a table becomes a ``TableRef``; its ``key`` (lower case, because sqlglot normalises names)
tells apart the same table read now and as of some version, and its ``label`` names it in messages.
Which snapshot a reference reads is decided by ``pick_snapshot`` over the table's snapshot log.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import sqlglot
from sqlglot import exp

from core.sql.model import AsOf, SqlError, TableRef
from schemas.base import iso_utc

SNAPSHOTS_OPERATION = "POST /svc_poweruser/analytics/tables/snapshots"
_FORMS = (
    "Write FOR VERSION AS OF <snapshotId> or FOR TIMESTAMP AS OF TIMESTAMP 'YYYY-MM-DD HH:MM:SS UTC'; "
    f"list a table's snapshots with {SNAPSHOTS_OPERATION}"
)
_TIMESTAMP_HINT = "Write TIMESTAMP 'YYYY-MM-DD HH:MM:SS[.ffffff]' with an optional zone (UTC when none)"
_DIGITS = re.compile(r"^[0-9]{1,20}$")
_LITERAL = re.compile(
    r"^(?P<date>\d{4}-\d{2}-\d{2})"
    r"(?:[ T](?P<time>\d{1,2}:\d{2}(?::\d{2})?)(?:\.(?P<fraction>\d{1,12}))?)?"
    r"\s*(?P<zone>Z|[+-]\d{2}(?::?\d{2})?|[A-Za-z][A-Za-z0-9_+\-/]*)?$"
)
MAX_SNAPSHOT_ID = 2**63 - 1
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _forbidden(message: str) -> SqlError:
    return SqlError("FORBIDDEN_CONSTRUCT", message, _FORMS)


def parse_timestamp(text: str) -> datetime:
    """The moment a timestamp literal names, aware and in UTC; PARSE_ERROR when it names none."""
    match = _LITERAL.match(text.strip())
    if match is None:
        raise SqlError("PARSE_ERROR", f"'{text[:100]}' is not a timestamp", _TIMESTAMP_HINT)
    fraction = (match.group("fraction") or "")[:6].ljust(6, "0")
    clock = match.group("time") or "00:00"
    if clock.count(":") == 1:
        clock += ":00"
    hours, rest = clock.split(":", 1)
    try:
        naive = datetime.fromisoformat(f"{match.group('date')}T{int(hours):02d}:{rest}.{fraction}")
        zone = match.group("zone")
        if zone is None or zone.upper() in ("Z", "UTC"):
            return naive.replace(tzinfo=UTC)
        if zone[0] in "+-":
            offset = zone if ":" in zone or len(zone) == 3 else f"{zone[:3]}:{zone[3:]}"
            return datetime.fromisoformat(f"{naive.isoformat()}{offset}").astimezone(UTC)
        return naive.replace(tzinfo=ZoneInfo(zone)).astimezone(UTC)
    except (ValueError, OverflowError, OSError, ZoneInfoNotFoundError):
        raise SqlError("PARSE_ERROR", f"'{text[:100]}' is not a timestamp", _TIMESTAMP_HINT) from None


def _snapshot_id(node: exp.Expr) -> int:
    if isinstance(node, exp.Literal) and _DIGITS.match(str(node.this)):
        value = int(str(node.this))
        if value <= MAX_SNAPSHOT_ID:
            return value
    raise _forbidden(f"FOR VERSION AS OF takes a snapshot id, not {node.sql(dialect='trino')[:100]}")


def _moment(node: exp.Expr) -> datetime:
    is_timestamp = isinstance(node, exp.Cast) and node.to.is_type(
        exp.DataType.Type.TIMESTAMP, exp.DataType.Type.TIMESTAMPTZ
    )
    if is_timestamp and isinstance(node.this, exp.Literal) and node.this.is_string:
        return parse_timestamp(str(node.this.this))
    written = node.sql(dialect="trino")[:100]
    raise _forbidden(f"FOR TIMESTAMP AS OF takes a TIMESTAMP literal, not {written}")


def version_as_of(version: exp.Version) -> AsOf:
    """The AS OF clause ``version`` holds; FORBIDDEN_CONSTRUCT (or PARSE_ERROR for a bad timestamp) for
    any other form."""
    kind = str(version.args.get("kind") or "").upper()
    what = str(version.this or "").upper()
    if kind != "AS OF" or what not in ("VERSION", "TIMESTAMP"):
        raise _forbidden(f"FOR {what} {kind} is not supported")
    expression = version.args.get("expression")
    if not isinstance(expression, exp.Expr):
        raise _forbidden(f"FOR {what} AS OF needs a value")
    if what == "VERSION":
        return AsOf(snapshot_id=_snapshot_id(expression))
    return AsOf(timestamp=_moment(expression))


def table_ref(table: exp.Table) -> TableRef:
    """The reference ``table`` makes (its AS OF clause checked)."""
    version = table.args.get("version")
    as_of = version_as_of(version) if isinstance(version, exp.Version) else None
    return TableRef(table.name.lower(), as_of)


def ref_key(table: exp.Table) -> str:
    return table_ref(table).key


class SnapshotNotFound(Exception):
    """The snapshot an AS OF clause names does not exist (any more)."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


def _iso(ms: int) -> str:
    """As the interface writes times (``committedAt`` of the snapshots list)."""
    return str(iso_utc(_EPOCH + timedelta(milliseconds=ms)))


def pick_snapshot(
    ref: TableRef,
    *,
    snapshots: Collection[int],
    log: Sequence[tuple[int, int]],
    current: int | None,
    now: datetime,
) -> int | None:
    """The id of the snapshot ``ref`` reads, from the table's snapshot ids, its snapshot log (``(committed
    at in ms, snapshot id)``, oldest first: the snapshots that were current, in turn) and its current
    snapshot. A moment at or after ``now`` reads the current snapshot (None: the table has none yet).

    Raises SnapshotNotFound for an id the table does not hold, or a moment before its oldest snapshot."""
    if ref.as_of is None:
        return current
    listed = f"List its snapshots with {SNAPSHOTS_OPERATION}"
    if ref.as_of.snapshot_id is not None:
        if ref.as_of.snapshot_id in snapshots:
            return ref.as_of.snapshot_id
        raise SnapshotNotFound(
            f'Table "{ref.name}" has no snapshot {ref.as_of.snapshot_id}',
            f"{listed}; snapshots past the retention are expired",
        )
    moment = ref.as_of.moment
    if moment >= now:
        return current
    limit_ms = _floor_ms(moment)
    for committed_ms, snapshot_id in reversed(log):
        if committed_ms <= limit_ms and snapshot_id in snapshots:
            return snapshot_id
    kept = [committed for committed, snapshot_id in log if snapshot_id in snapshots]
    if kept:
        hint = f"Its oldest snapshot was committed at {_iso(min(kept))}. {listed}"
    elif not snapshots:
        hint = f"The table has no snapshot yet: nothing was ever written to it. {listed}"
    else:
        hint = listed
    raise SnapshotNotFound(f'Table "{ref.name}" has no snapshot at or before {_iso(limit_ms)}', hint)


def _floor_ms(moment: datetime) -> int:
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def filter_columns(row_filter: str) -> frozenset[str]:
    """The columns a grant's row filter (checked, Trino dialect: ``core.row_filter``) names."""
    tree = sqlglot.parse_one(f"SELECT 1 FROM t WHERE {row_filter}", read="trino")  # noqa: S608 - never run
    return frozenset(column.name.lower() for column in tree.find_all(exp.Column))
