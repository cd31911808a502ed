"""How much room the file systems of the service's local storage have left, for ``/readyz``.

The local storage is the data directory and, where they are set elsewhere, the SQLite file's folder, the local
object store and the local warehouse. Each distinct file system is measured with one ``statvfs`` call (no
file is written): it is short of room when less than ``SVC_STORAGE_MIN_FREE_BYTES`` is free to the service or
no inode is left. S3 and a PostgreSQL server are not measured here; their refusals are counted where they
happen (``sinks/storage_full.Sightings``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from schemas.settings import Settings

_SQLITE_PREFIX = "sqlite:///"
_FILE_PREFIX = "file://"


@dataclass(frozen=True)
class Room:
    """What a file system has left for the service: bytes and inodes."""

    free_bytes: int
    free_inodes: int


def local_paths(settings: Settings) -> list[Path]:
    """The folders the service writes its local storage in (S3 locations left out), a folder inside another
    one of them left out too."""
    found = [settings.data_dir]
    database = settings.resolved_database_url
    if database.startswith(_SQLITE_PREFIX):
        found.append(Path(database.removeprefix(_SQLITE_PREFIX).split("?", 1)[0]).parent)
    for location in (settings.resolved_object_store, settings.resolved_warehouse):
        if location.startswith(_FILE_PREFIX):
            found.append(Path(location.removeprefix(_FILE_PREFIX)))
        elif "://" not in location:
            found.append(Path(location))
    kept: list[Path] = []
    for path in (path.expanduser().absolute() for path in found):
        if not any(path.is_relative_to(folder) for folder in kept):
            kept = [folder for folder in kept if not folder.is_relative_to(path)] + [path]
    return kept


def short_of_room(room: Room, min_free_bytes: int) -> bool:
    """No write can be counted on: under ``min_free_bytes`` free, or no inode left for a new file."""
    return room.free_bytes < min_free_bytes or room.free_inodes == 0


def room_of(path: Path) -> tuple[int, Room]:
    """The file system of ``path`` (or of its nearest folder that exists): its device and its room. Space
    reserved for root counts only for a service that runs as root, which may write it."""
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    stats = os.statvfs(existing)
    privileged = hasattr(os, "geteuid") and os.geteuid() == 0
    blocks = stats.f_bfree if privileged else stats.f_bavail
    inodes = stats.f_ffree if privileged else stats.f_favail
    # Some file systems (tmpfs with nr_inodes=0, btrfs) report no inode count at all: never "none left".
    free_inodes = inodes if stats.f_files else 1
    return os.stat(existing).st_dev, Room(free_bytes=blocks * stats.f_frsize, free_inodes=free_inodes)


def local_storage_short(settings: Settings) -> bool:
    """Whether any file system of the service's local storage is short of room (each measured once)."""
    seen: set[int] = set()
    for path in local_paths(settings):
        device, room = room_of(path)
        if device in seen:
            continue
        seen.add(device)
        if short_of_room(room, settings.storage_min_free_bytes):
            return True
    return False
