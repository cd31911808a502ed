"""Errors of bulk loads; each fails the whole load with a message safe to show to the caller."""

from __future__ import annotations

from sinks.exceptions import SinkError


class LoadError(SinkError):
    """Base of the errors below."""


class LoadFileError(LoadError):
    """A source file that cannot be read at all: missing, empty, not CSV/Parquet, corrupt, not UTF-8."""


class LoadMappingError(LoadError, ValueError):
    """The file's columns cannot be matched to the table's columns (bad mapping, required column absent)."""
