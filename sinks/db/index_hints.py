"""A column compared in a form no index serves, so that the planner looks rows up by the ids' own index."""

from __future__ import annotations

from sqlalchemy.orm import InstrumentedAttribute
from sqlalchemy.sql.elements import ColumnElement


def unindexed(column: ColumnElement[str] | InstrumentedAttribute[str]) -> ColumnElement[str]:
    """``column || ''``: the same value, in a form no index serves. Without statistics SQLite's planner
    prefers an equality on the company, the webhook or the status to a list of ids, and so walked a
    company's whole history for every few ids a statement named: the worker's claim of a batch of attempts
    read every execution of the company (checked with EXPLAIN QUERY PLAN; at 100,000 executions it was half
    the worker's CPU), and so did a replay's reads. Compared this way, the tenancy and the compare-and-set
    stay in the WHERE clause and the ids are looked up by their own index."""
    return column + ""
