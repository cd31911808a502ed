"""Parser for 6-field AWS EventBridge cron expressions.

``minute hour day-of-month month day-of-week year``; day-of-week uses AWS numbering
(1 = SUN ... 7 = SAT).  The result is a :class:`CronFields` of plain sorted tuples so that the
evaluator never re-reads the text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["CronFields", "CronSyntaxError", "DayOfMonthRule", "DayOfWeekRule", "parse_fields"]

FIELD_NAMES = ("minute", "hour", "day-of-month", "month", "day-of-week", "year")
YEAR_MIN, YEAR_MAX = 1970, 2199

_MONTHS = {
    "JAN": 1, "FEB": 2, "MAR": 3, "APR": 4, "MAY": 5, "JUN": 6,
    "JUL": 7, "AUG": 8, "SEP": 9, "OCT": 10, "NOV": 11, "DEC": 12,
}  # fmt: skip
_WEEKDAYS = {"SUN": 1, "MON": 2, "TUE": 3, "WED": 4, "THU": 5, "FRI": 6, "SAT": 7}
_DIGITS = re.compile(r"[0-9]+")


class CronSyntaxError(ValueError):
    """A cron expression that cannot be parsed; the message names the field and the token."""

    def __init__(self, message: str, *, field: str | None = None, token: str | None = None) -> None:
        self.field = field
        self.token = token
        if field is not None and token is not None:
            message = f"{field} field: invalid token '{token}': {message}"
        elif field is not None:
            message = f"{field} field: {message}"
        super().__init__(message)


@dataclass(frozen=True)
class DayOfMonthRule:
    days: tuple[int, ...] = ()
    last: bool = False  # L
    last_weekday: bool = False  # LW
    nearest_weekday: tuple[int, ...] = ()  # nW


@dataclass(frozen=True)
class DayOfWeekRule:
    weekdays: tuple[int, ...] = ()  # AWS numbering, 1 = SUN
    last_of: tuple[int, ...] = ()  # 6L = last Friday
    nth: tuple[tuple[int, int], ...] = ()  # 6#3 = (6, 3), third Friday


@dataclass(frozen=True)
class CronFields:
    minutes: tuple[int, ...]
    hours: tuple[int, ...]
    day_of_month: DayOfMonthRule | None  # None when the field is '?'
    months: tuple[int, ...]
    day_of_week: DayOfWeekRule | None
    years: tuple[int, ...]


@dataclass(frozen=True)
class _Field:
    name: str
    lo: int
    hi: int
    names: Mapping[str, int]
    # Wrapping ranges such as 22-2 (hours) or FRI-MON only make sense on cyclic fields.
    cyclic: bool

    @property
    def bounds(self) -> str:
        return f"{self.lo}-{self.hi}"


_MINUTE = _Field("minute", 0, 59, {}, cyclic=True)
_HOUR = _Field("hour", 0, 23, {}, cyclic=True)
_DOM = _Field("day-of-month", 1, 31, {}, cyclic=False)
_MONTH = _Field("month", 1, 12, _MONTHS, cyclic=True)
_DOW = _Field("day-of-week", 1, 7, _WEEKDAYS, cyclic=True)
_YEAR = _Field("year", YEAR_MIN, YEAR_MAX, {}, cyclic=False)


def parse_fields(expression: str) -> CronFields:
    parts = expression.split()
    if len(parts) != len(FIELD_NAMES):
        raise CronSyntaxError(
            f"expected 6 fields (minute hour day-of-month month day-of-week year), got {len(parts)}"
            + (": AWS cron expressions need a year field, e.g. '*'" if len(parts) == 5 else "")
        )
    minute, hour, dom, month, dow, year = parts
    if (dom == "?") == (dow == "?"):
        raise CronSyntaxError(
            "exactly one of day-of-month and day-of-week must be '?' "
            f"(got day-of-month '{dom}' and day-of-week '{dow}')"
        )
    return CronFields(
        minutes=_parse_plain(minute, _MINUTE),
        hours=_parse_plain(hour, _HOUR),
        day_of_month=None if dom == "?" else _parse_dom(dom),
        months=_parse_plain(month, _MONTH),
        day_of_week=None if dow == "?" else _parse_dow(dow),
        years=_parse_plain(year, _YEAR),
    )


def _items(text: str, field: _Field) -> list[str]:
    items = text.split(",")
    for item in items:
        if not item:
            raise CronSyntaxError("empty item in list", field=field.name, token=text)
        if item == "?" and len(items) > 1:
            raise CronSyntaxError("'?' must stand alone", field=field.name, token=text)
        if item == "?":
            raise CronSyntaxError(
                "'?' is only allowed in day-of-month or day-of-week", field=field.name, token=item
            )
    return items


def _parse_plain(text: str, field: _Field) -> tuple[int, ...]:
    values: set[int] = set()
    for item in _items(text, field):
        values.update(_parse_item(item, field))
    return tuple(sorted(values))


def _parse_item(item: str, field: _Field) -> list[int]:
    """One list item of a numeric field: ``*``, ``a``, ``a-b``, ``*/n``, ``a/n``, ``a-b/n``."""
    _reject_special(item, field)
    base, slash, step_text = item.partition("/")
    step = _parse_step(step_text, item, field) if slash else 1
    if base == "*":
        start, end = field.lo, field.hi
    elif "-" in base:
        start, end = _parse_range(base, item, field)
    else:
        start = _value(base, item, field)
        # 'a/n' runs from a to the end of the field; a bare 'a' is just a.
        end = field.hi if slash else start
    return _walk(start, end, step, field)


def _reject_special(item: str, field: _Field) -> None:
    # Strip names first so the L of JUL or the W of WED is not taken for a special character.
    bare = item.upper()
    for name in field.names:
        bare = bare.replace(name, "")
    for char, allowed in (("#", (_DOW,)), ("W", (_DOM,)), ("L", (_DOM, _DOW))):
        if char in bare and field not in allowed:
            where = " or ".join(f.name for f in allowed)
            raise CronSyntaxError(f"'{char}' is only allowed in {where}", field=field.name, token=item)


def _parse_step(text: str, item: str, field: _Field) -> int:
    span = field.hi - field.lo + 1
    if not _DIGITS.fullmatch(text) or not 1 <= int(text) <= span:
        raise CronSyntaxError(f"step must be a whole number from 1 to {span}", field=field.name, token=item)
    return int(text)


def _parse_range(text: str, item: str, field: _Field) -> tuple[int, int]:
    first, _, last = text.partition("-")
    if "-" in last:
        raise CronSyntaxError("a range has one '-'", field=field.name, token=item)
    start, end = _value(first, item, field), _value(last, item, field)
    if start > end and not field.cyclic:
        raise CronSyntaxError(f"range start {start} is after range end {end}", field=field.name, token=item)
    return start, end


def _value(text: str, item: str, field: _Field) -> int:
    upper = text.upper()
    if upper in field.names:
        return field.names[upper]
    if _DIGITS.fullmatch(text):
        number = int(text)
        if field.lo <= number <= field.hi:
            return number
        raise CronSyntaxError(
            f"{number} is out of range {field.bounds}{_name_hint(field)}", field=field.name, token=item
        )
    if text == "":
        raise CronSyntaxError("missing value", field=field.name, token=item)
    if text.isalpha() and field.names:
        raise CronSyntaxError(
            f"unknown name '{text}'; expected a number {field.bounds}{_name_hint(field)}",
            field=field.name,
            token=item,
        )
    raise CronSyntaxError(
        f"expected a number {field.bounds}{_name_hint(field)}", field=field.name, token=item
    )


def _name_hint(field: _Field) -> str:
    if not field.names:
        return ""
    ordered = sorted(field.names, key=field.names.__getitem__)
    return f" or a name {ordered[0]}-{ordered[-1]}"


def _walk(start: int, end: int, step: int, field: _Field) -> list[int]:
    span = field.hi - field.lo + 1
    length = (end - start) % span + 1 if field.cyclic else end - start + 1
    return [field.lo + (start - field.lo + offset) % span for offset in range(0, length, step)]


def _parse_dom(text: str) -> DayOfMonthRule:
    days: set[int] = set()
    nearest: set[int] = set()
    last = last_weekday = False
    for item in _items(text, _DOM):
        upper = item.upper()
        if upper == "L":
            last = True
        elif upper == "LW":
            last_weekday = True
        elif upper.endswith("W"):
            base = item[:-1]
            if not _DIGITS.fullmatch(base):
                raise CronSyntaxError(
                    "'W' must follow a single day, as in 15W or LW", field=_DOM.name, token=item
                )
            nearest.add(_value(base, item, _DOM))
        elif "L" in upper:
            raise CronSyntaxError(
                "'L' must stand alone (last day) or be written LW (last weekday)",
                field=_DOM.name,
                token=item,
            )
        else:
            days.update(_parse_item(item, _DOM))
    return DayOfMonthRule(tuple(sorted(days)), last, last_weekday, tuple(sorted(nearest)))


def _parse_dow(text: str) -> DayOfWeekRule:
    weekdays: set[int] = set()
    last_of: set[int] = set()
    nth: set[tuple[int, int]] = set()
    for item in _items(text, _DOW):
        upper = item.upper()
        if upper == "L":
            # AWS (like Quartz) reads a bare L in day-of-week as 7, i.e. Saturday.
            weekdays.add(_DOW.hi)
        elif "#" in item:
            day_text, _, nth_text = item.partition("#")
            if not _DIGITS.fullmatch(nth_text) or not 1 <= int(nth_text) <= 5:
                raise CronSyntaxError("the number after '#' must be 1 to 5", field=_DOW.name, token=item)
            nth.add((_single_weekday(day_text, item), int(nth_text)))
        elif upper.endswith("L"):
            last_of.add(_single_weekday(item[:-1], item))
        else:
            weekdays.update(_parse_item(item, _DOW))
    return DayOfWeekRule(tuple(sorted(weekdays)), tuple(sorted(last_of)), tuple(sorted(nth)))


def _single_weekday(text: str, item: str) -> int:
    if any(c in text for c in "-/,*"):
        raise CronSyntaxError(
            "'L' and '#' need a single weekday, as in 6L or FRI#3", field=_DOW.name, token=item
        )
    return _value(text, item, _DOW)
