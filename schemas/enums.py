"""Enumerations shared by the wire models and the metadata DB."""

from __future__ import annotations

from enum import StrEnum


class AccessLevel(StrEnum):
    READ = "READ"
    WRITE = "WRITE"
    PUBLISH = "PUBLISH"
    ADMIN = "ADMIN"

    @property
    def rank(self) -> int:
        return _RANK[self]

    def allows(self, needed: AccessLevel) -> bool:
        return self.rank >= needed.rank

    @classmethod
    def highest(cls, *levels: AccessLevel | None) -> AccessLevel | None:
        present = [level for level in levels if level is not None]
        return max(present, key=lambda level: level.rank) if present else None


_RANK = {AccessLevel.READ: 1, AccessLevel.WRITE: 2, AccessLevel.PUBLISH: 3, AccessLevel.ADMIN: 4}


class HandlerType(StrEnum):
    AGENT = "AGENT"
    TOOL = "TOOL"
    MANAGER = "MANAGER"


class KeyKind(StrEnum):
    CLIENT = "CLIENT"
    POWERUSER = "POWERUSER"
