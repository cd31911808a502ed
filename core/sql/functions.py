"""The functions analytics SQL may call, and the Trino → DuckDB fixes sqlglot's translation needs.

Only pure functions are allowed: sqlglot's typed function nodes listed in ``ALLOWED_FUNCTIONS`` and the
untyped (``Anonymous``) names in ``ALLOWED_ANONYMOUS``. Anything else, in particular every function that
reads files, URLs, the catalog, settings or system state, is refused by the front.

Fixes applied to a qualified, type-annotated tree before it is written as DuckDB SQL:

- ``/`` between two integers is integer division in Trino (truncating): written as DuckDB ``//``.
- ``date_trunc`` and ``date_add`` on a DATE return a DATE in Trino (DuckDB returns a TIMESTAMP): cast back.
- ``date_diff`` counts whole units elapsed in Trino; DuckDB ``date_diff`` counts boundaries crossed, its
  ``date_sub`` counts whole units: written as ``date_sub``.
- ``extract(dow ...)``/``day_of_week`` is ISO (Monday 1 … Sunday 7) in Trino: written as ``isodow``;
  ``year_of_week`` as ``isoyear``.
- ``format_datetime`` takes a Joda pattern: translated to a ``strftime`` pattern. The pattern must be a
  literal; letters without a strftime equivalent (era, century, clock-hour ``k``/``K``, half-day hour
  ``K``, fractions other than ``SSS``, ``SSSSSS``, ``SSSSSSSSS``, numeric zone ``Z``) are refused.
- TIMESTAMP(p) and TIME(p) lose their precision: DuckDB would read TIMESTAMP(0) as a seconds-only type.
- ``date_format``'s ``%v`` (ISO week) is written as strftime ``%V``.
- ``regexp_replace``'s replacement uses Java syntax (``$1``) in Trino and RE2 syntax (``\\1``) in DuckDB:
  the replacement must be a literal and is translated; named groups (``${name}``) are refused.
"""

from __future__ import annotations

from sqlglot import exp

from core.sql.model import SqlError

ALLOWED_FUNCTIONS: tuple[type[exp.Func], ...] = (
    # conditionals and casts
    exp.Coalesce, exp.Nullif, exp.If, exp.Case, exp.Cast, exp.TryCast, exp.Greatest, exp.Least,
    # math
    exp.Round, exp.Floor, exp.Ceil, exp.Abs, exp.Pow, exp.Sqrt, exp.Ln, exp.Log, exp.Exp, exp.Sign,
    # strings
    exp.Concat, exp.Length, exp.Lower, exp.Upper, exp.Trim, exp.Pad, exp.Substring, exp.Replace,
    exp.Split, exp.SplitPart, exp.StrPosition, exp.StartsWith, exp.RegexpLike, exp.RegexpExtract,
    exp.RegexpReplace, exp.Reverse,
    # JSON and arrays
    exp.JSONExtract, exp.JSONExtractScalar, exp.JSONFormat, exp.ArraySize, exp.ArrayContains,
    exp.ArrayToString, exp.Array, exp.Struct,
    # dates and times
    exp.DateTrunc, exp.TimestampTrunc, exp.DateAdd, exp.DateDiff, exp.TimeToStr, exp.StrToTime,
    exp.FromISO8601Date, exp.FromISO8601Timestamp, exp.TimeToUnix, exp.UnixToTime, exp.Year, exp.Quarter,
    exp.Month, exp.WeekOfYear, exp.Day, exp.DayOfWeekIso, exp.DayOfYear, exp.Hour, exp.Minute, exp.Second,
    exp.Extract, exp.CurrentDate, exp.CurrentTimestamp,
    # aggregates
    exp.Count, exp.CountIf, exp.Sum, exp.Avg, exp.Min, exp.Max, exp.LogicalAnd, exp.LogicalOr,
    exp.AnyValue, exp.ArgMax, exp.ArgMin, exp.Stddev, exp.StddevSamp, exp.StddevPop, exp.Variance,
    exp.VariancePop, exp.Corr, exp.ApproxDistinct, exp.ApproxQuantile,
    # window functions
    exp.RowNumber, exp.Rank, exp.DenseRank, exp.Ntile, exp.Lag, exp.Lead, exp.FirstValue, exp.LastValue,
)  # fmt: skip

# Trino functions sqlglot parses as untyped calls; each is translated below.
ALLOWED_ANONYMOUS: frozenset[str] = frozenset({"format_datetime"})

_TIMESTAMP_TYPES = (exp.DataType.Type.TIMESTAMP, exp.DataType.Type.TIMESTAMPTZ, exp.DataType.Type.TIME)
_DATE_UNITS = {"DAY", "WEEK", "MONTH", "QUARTER", "YEAR"}
_EXTRACT_PARTS = {"DOW": "ISODOW", "DAY_OF_WEEK": "ISODOW", "YEAR_OF_WEEK": "ISOYEAR", "YOW": "ISOYEAR"}

# Joda pattern letter → {run length: strftime}; a run length not listed uses the entry under 0.
_JODA: dict[str, dict[int, str]] = {
    "y": {2: "%y", 0: "%Y"},
    "Y": {2: "%y", 0: "%Y"},
    "x": {0: "%G"},
    "M": {1: "%-m", 2: "%m", 3: "%b", 0: "%B"},
    "d": {1: "%-d", 2: "%d"},
    "D": {1: "%-j", 2: "%-j", 3: "%j"},
    "H": {1: "%-H", 2: "%H"},
    "h": {1: "%-I", 2: "%I"},
    "m": {1: "%-M", 2: "%M"},
    "s": {1: "%-S", 2: "%S"},
    "S": {3: "%g", 6: "%f", 9: "%n"},
    "a": {1: "%p"},
    "E": {1: "%a", 2: "%a", 3: "%a", 0: "%A"},
    "e": {1: "%u"},
    "w": {1: "%-V", 2: "%V"},
    "z": {1: "%Z", 2: "%Z", 3: "%Z"},
}


def _refuse(message: str, hint: str) -> SqlError:
    return SqlError("FORBIDDEN_CONSTRUCT", message, hint)


def joda_to_strftime(pattern: str) -> str:
    """A Joda-Time pattern (Trino ``format_datetime``) as a DuckDB ``strftime`` pattern."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "'":
            if pattern.startswith("''", i):  # '' is a quote character, inside quoted text or not
                out.append("'")
                i += 2
                continue
            i += 1
            while not (i < len(pattern) and pattern[i] == "'" and not pattern.startswith("''", i)):
                if i >= len(pattern):
                    raise _refuse(
                        "format_datetime pattern has an unterminated quote", "Close the quoted text"
                    )
                out.append("%%" if pattern[i] == "%" else pattern[i])
                i += 2 if pattern.startswith("''", i) else 1
            i += 1
            continue
        if not char.isascii() or not char.isalpha():
            out.append("%%" if char == "%" else char)
            i += 1
            continue
        run = len(pattern) - i - len(pattern[i:].lstrip(char))
        table = _JODA.get(char, {})
        code = table.get(run, table.get(0))
        if code is None:
            raise _refuse(
                f"format_datetime pattern {char * run!r} is not supported",
                "Use yyyy, yy, MM, MMM, MMMM, dd, D, HH, hh, mm, ss, SSS, a, E, EEEE, e, w, x or z",
            )
        out.append(code)
        i += run
    return "".join(out)


def java_to_re2_replacement(text: str) -> str:
    """A Java regex replacement (``$1``, ``\\$``) as an RE2 rewrite (``\\1``, ``$``)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            out.append("\\\\" if nxt == "\\" else nxt)
            i += 2
        elif char == "$" and i + 1 < len(text) and text[i + 1].isdigit():
            out.append("\\" + text[i + 1])
            i += 2
        elif char == "$":
            raise _refuse(
                "regexp_replace replacement uses an unsupported group reference",
                "Refer to groups by number, e.g. $1",
            )
        elif char == "\\":
            out.append("\\\\")
            i += 1
        else:
            out.append(char)
            i += 1
    return "".join(out)


def _is_integer(node: exp.Expr) -> bool:
    return node.type is not None and node.type.is_type(*exp.DataType.INTEGER_TYPES)


def _is_date(node: exp.Expr | None) -> bool:
    return isinstance(node, exp.Expr) and node.type is not None and node.type.is_type(exp.DataType.Type.DATE)


def _unit(node: exp.Expr) -> str:
    unit = node.args.get("unit")
    return unit.name.upper() if isinstance(unit, exp.Expr) else ""


def _literal_text(node: exp.Expr | None, function: str) -> str:
    if not isinstance(node, exp.Literal) or not node.is_string:
        raise _refuse(
            f"{function} needs a literal pattern", f"Write the {function} pattern as a string literal"
        )
    return node.this if isinstance(node.this, str) else str(node.this)


def _cast_to_date(node: exp.Expr) -> None:
    cast = exp.Cast(this=exp.null(), to=exp.DataType.build("DATE"))
    node.replace(cast)
    cast.set("this", node)


def translate(tree: exp.Expr) -> exp.Expr:
    """Rewrite ``tree`` (qualified and type-annotated, in place) so DuckDB gives Trino's answers."""
    for node in list(tree.find_all(exp.Func, exp.Div, exp.DataType)):
        replacement: exp.Expr | None = None
        if isinstance(node, exp.DataType) and node.is_type(*_TIMESTAMP_TYPES):
            node.set("expressions", [])
        elif isinstance(node, exp.Div) and _is_integer(node.this) and _is_integer(node.expression):
            replacement = exp.IntDiv(this=node.this, expression=node.expression)
        elif _is_date(node.this) and (
            isinstance(node, exp.DateTrunc | exp.TimestampTrunc)
            or (isinstance(node, exp.DateAdd) and _unit(node) in _DATE_UNITS)
        ):
            _cast_to_date(node)
        elif isinstance(node, exp.DateDiff):
            unit = exp.Literal.string(_unit(node) or "DAY")
            replacement = exp.Anonymous(this="DATE_SUB", expressions=[unit, node.expression, node.this])
        elif isinstance(node, exp.Extract) and node.this.name.upper() in _EXTRACT_PARTS:
            node.set("this", exp.var(_EXTRACT_PARTS[node.this.name.upper()]))
        elif isinstance(node, exp.TimeToStr) and isinstance(node.args.get("format"), exp.Literal):
            node.set("format", exp.Literal.string(node.args["format"].this.replace("%v", "%V")))
        elif isinstance(node, exp.RegexpReplace) and node.args.get("replacement") is not None:
            text = _literal_text(node.args["replacement"], "regexp_replace")
            node.set("replacement", exp.Literal.string(java_to_re2_replacement(text)))
        elif isinstance(node, exp.Anonymous) and node.name.lower() == "format_datetime":
            if len(node.expressions) != 2:
                raise _refuse(
                    "format_datetime takes a timestamp and a pattern", "format_datetime(ts, 'yyyy-MM')"
                )
            pattern = joda_to_strftime(_literal_text(node.expressions[1], "format_datetime"))
            replacement = exp.Anonymous(
                this="STRFTIME", expressions=[node.expressions[0], exp.Literal.string(pattern)]
            )
        if replacement is not None:
            node.replace(replacement)
    return tree
