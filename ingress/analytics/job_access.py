"""Who may read a job's output: the one check every read of it goes through.

A job's output is whatever was computed under its runner's grant: the result rows, the result columns and
row count in /job-status, pages in /job-results, downloads, the /query preview, the SQL text and row count
in /jobs (and any cache of those). Serving it to a caller with a narrower grant would hand them rows their
row filter hides and columns hidden from them. So, decided for tenant isolation (core/policy.py holds the
comparison):

- When a query is planned, its runner's effective policy on every table it reads (row filter, hidden
  columns, the masked columns they could reveal) is stored with the job (``jobs.policy_json``).
- On every read, :func:`check_output` compares the reader's CURRENT effective policy with the stored one:
  the reader must have READ and be at least as broad on every table (no row filter or the identical
  normalized one; hidden columns a subset of the runner's; reveal rights a superset wherever the output
  carries revealed values). Otherwise 403 ``FORBIDDEN`` with the hint to run the query themselves. This
  holds for the runner too, so a grant narrowed after the job ran takes effect at once; an equal grant
  reads normally, and a company admin (no filter, nothing hidden) reads anyone's job.
- Stored results keep masked values encrypted and reveal them per read with the reader's own reveal
  right, so a job's output carries no revealed values and reveal rights never refuse a read today.
- A query planned before policies were stored (NULL policy) is readable by its runner (with READ on every
  table it reads) and by company admins only: there is nothing to compare a third caller with.
- A load's output (row counts, the sample of rejected rows) comes from its runner's own files, not through
  a grant: its runner reads it with READ; anyone else needs a grant that shows the whole table.
- An append's output is its counts (rows appended, in /job-status and /jobs): no values, so hidden
  columns and reveal rights do not matter, but a row filter does (the count says how many rows were added
  that such a reader may not see). Its runner reads it with READ (the rows were theirs to send); anyone
  else needs READ with no row filter. A refused reader still sees the append's state and times, since
  /jobs lists it to anyone with READ: the counts alone are left out (``append_counts_refusal``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy.orm import Session

from core import policy as policies
from core.policy import TablePolicy
from ingress.analytics.coded_errors import analytics_error
from ingress.errors import ApiError
from schemas.admin import Principal
from schemas.jobs import JobKind
from sinks.db.analytics import job_listing, tables
from sinks.db.analytics.append_jobs import AppendJob
from sinks.db.models import AnalyticsTable, Job

# What a stored result carries in plaintext: nothing (masked values stay encrypted until a read reveals
# them under the reader's own right). A result that stored revealed values would list them here.
_REVEALED_IN_OUTPUT: dict[str, frozenset[str]] = {}


@dataclass(frozen=True)
class Reader:
    """Who reads: an API caller, or the user a download link was issued to."""

    company_id: str
    user_id: str
    is_admin: bool

    @classmethod
    def of(cls, caller: Principal) -> Reader:
        return cls(caller.company_id, caller.user_id, caller.is_admin)


@dataclass(frozen=True)
class JobOutput:
    """What the check needs of a job (a stored job, or a /jobs listing entry)."""

    job_id: str
    kind: str
    created_by: str | None
    table_ids: tuple[str, ...]
    policy: str | None

    @classmethod
    def of_job(cls, job: Job) -> JobOutput:
        tables_read = tuple(json.loads(job.tables_json))
        return cls(job.id, job.kind, job.created_by, tables_read, job.policy_json)

    @classmethod
    def of_listed(cls, item: job_listing.Listed) -> JobOutput:
        return cls(item.job_id, item.kind, item.created_by, tuple(item.tables), item.policy)


def table_policy(table: AnalyticsTable, access: tables.TableAccess) -> TablePolicy:
    """A caller's effective policy on ``table`` from their access to it."""
    masked = {c["name"] for c in json.loads(table.columns_json) if c.get("masked")}
    return TablePolicy(
        row_filter=policies.normalized_row_filter(access.row_filter),
        hidden_columns=access.hidden_columns,
        revealable=frozenset(masked - access.hidden_columns) if access.can_reveal else frozenset(),
    )


class OutputAccess:
    """One reader's current policies within one session, each table looked up once (a /jobs page asks
    about many jobs over the same tables)."""

    def __init__(self, session: Session, reader: Reader) -> None:
        self._session = session
        self._reader = reader
        self._tables: dict[str, AnalyticsTable | None] = {}
        self._current: dict[str, TablePolicy | None] = {}

    def _table(self, table_id: str) -> AnalyticsTable | None:
        if table_id not in self._tables:
            self._tables[table_id] = tables.get(self._session, self._reader.company_id, table_id)
        return self._tables[table_id]

    def current(self, table_id: str) -> TablePolicy | None:
        """The reader's effective policy on the table now; None when they cannot read it."""
        if table_id not in self._current:
            table = self._table(table_id)
            reader = self._reader
            access = (
                tables.access(self._session, reader.company_id, reader.user_id, reader.is_admin, table_id)
                if table is not None
                else tables.NO_ACCESS
            )
            self._current[table_id] = (
                table_policy(table, access) if table is not None and access.allows("READ") else None
            )
        return self._current[table_id]

    def refusal(self, job: JobOutput) -> ApiError | None:
        """The 403 a read of ``job``'s output gets, or None when the reader may read it."""
        if job.kind == JobKind.APPEND.value:
            return self._append_refusal(job)
        current = {table_id: self.current(table_id) for table_id in job.table_ids}
        runner_reads = job.created_by == self._reader.user_id and None not in current.values()
        if job.kind == JobKind.LOAD.value and job.policy is None:
            if runner_reads:
                return None
            ran_with = {table_id: TablePolicy() for table_id in job.table_ids}
        else:
            stored = _stored(job.policy)
            if stored is None:
                if runner_reads or self._reader.is_admin:
                    return None
                return analytics_error(
                    "FORBIDDEN",
                    f"Job {job.job_id} was recorded without its runner's grant: only its runner and company "
                    "admins may read its output",
                    "Run the query yourself",
                )
            # A table the job reads but the policy misses (none does) is held to the whole table.
            ran_with = {table_id: TablePolicy() for table_id in job.table_ids} | stored
        readers = {table_id: self.current(table_id) for table_id in ran_with}
        short = policies.shortfalls(readers, ran_with, _REVEALED_IN_OUTPUT)
        if not short:
            return None
        table_id = next(iter(short))
        table = self._table(table_id)
        name = table.sql_name if table is not None else table_id
        return analytics_error(
            "FORBIDDEN",
            f"Job {job.job_id} ran under a broader grant on table {name} than yours: its output is not "
            "yours to read",
            f"Run the query yourself: your grant on table {name} is narrower than the grant this job "
            "ran with",
        )

    def _append_refusal(self, job: JobOutput) -> ApiError | None:
        refusals = {
            table_id: why
            for table_id in job.table_ids
            if (why := _append_shortfall(self.current(table_id), job.created_by == self._reader.user_id))
        }
        if not refusals:
            return None
        table_id, why = next(iter(refusals.items()))
        table = self._table(table_id)
        name = table.sql_name if table is not None else table_id
        return analytics_error(
            "FORBIDDEN",
            f"The row counts of append {job.job_id} to table {name} are not yours to read: {why}",
            f"Its row counts are shown to its sender and to readers of every row of table {name}",
        )

    def check(self, job: JobOutput) -> None:
        refused = self.refusal(job)
        if refused is not None:
            raise refused


def _append_shortfall(current: TablePolicy | None, runner: bool) -> str | None:
    """Why a reader may not see an append's counts on one table, or None."""
    if current is None:
        return "you have no READ grant on it"
    if runner or current.row_filter is None:
        return None
    return "your grant's row filter hides some of its rows"


def append_counts_refusal(session: Session, reader: Reader, append: AppendJob) -> ApiError | None:
    """The refusal of an APPEND job's counts to ``reader``, or None when they may see them (see above)."""
    output = JobOutput(append.id, JobKind.APPEND.value, append.created_by, (append.table_id,), None)
    return OutputAccess(session, reader).refusal(output)


def _stored(text: str | None) -> dict[str, TablePolicy] | None:
    """The stored runner policy; None when there is none (or it cannot be read: nothing to compare)."""
    if text is None:
        return None
    try:
        return policies.loads(text)
    except ValueError:
        return None


def check_output(session: Session, reader: Reader, job: Job) -> None:
    """Raise 403 FORBIDDEN unless ``reader`` may read ``job``'s output now (see the module docstring).
    Every read of a job's output calls this, on every read: results, status, downloads and their links,
    the /query preview, and any future cache of them."""
    OutputAccess(session, reader).check(JobOutput.of_job(job))
