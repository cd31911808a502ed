"""Each company's DuckDB database spills into its own folder under the data dir, with its own cap."""

from __future__ import annotations

import os
import stat
import threading
import time
from pathlib import Path

import duckdb
import pytest

from sinks.duckdb_engine import SPILL_FOLDER, Spill
from sinks.query_engine import QueryEngines

pytestmark = pytest.mark.unit

# Sorting this many strings does not fit in the 32 MB the databases below may hold in memory.
SPILLING = (
    "SELECT max(m) FROM (SELECT i, md5(i::VARCHAR) AS m FROM range(1000000) t(i) ORDER BY m LIMIT 999999)"
)
HOSTILE, VICTIM = "c_" + "a" * 32, "c_" + "b" * 32


def setting(cursor: duckdb.DuckDBPyConnection, name: str) -> str:
    row = cursor.execute(f"SELECT current_setting('{name}')").fetchone()
    assert row is not None
    return str(row[0])


def test_two_companies_spill_into_their_own_folders(tmp_path: Path) -> None:
    (tmp_path / "warehouse").mkdir()
    data = tmp_path / "data"
    engines = QueryEngines(
        tmp_path / "warehouse", threads=1, memory_limit="32MB", spill_root=data, max_spill_bytes=2 * 1000**3
    )
    try:
        hostile, victim = engines.cursor(HOSTILE), engines.cursor(VICTIM)
        folders = [Path(setting(cursor, "temp_directory")) for cursor in (hostile, victim)]
        own = data.resolve() / SPILL_FOLDER / f"p{os.getpid()}"  # a folder per process: they never share one
        assert folders == [own / name for name in (HOSTILE, VICTIM)]
        for folder in (*folders, folders[0].parent):
            assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert setting(hostile, "max_temp_directory_size") == setting(victim, "max_temp_directory_size")
        assert setting(hostile, "max_temp_directory_size") == "1.8 GiB"  # 2 * 10^9 bytes

        seen: dict[str, set[str]] = {HOSTILE: set(), VICTIM: set()}
        running = threading.Event()
        running.set()

        def watch() -> None:
            while running.is_set():
                for name, folder in zip((HOSTILE, VICTIM), folders, strict=True):
                    seen[name].update(path.name for path in folder.iterdir())
                time.sleep(0.002)

        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            assert hostile.execute(SPILLING).fetchone() is not None
        finally:
            running.clear()
            watcher.join()
        # The locked-down database spilled, into the hostile company's folder only.
        assert seen[HOSTILE] and not seen[VICTIM]
        # Its settings are locked: a query cannot move its spill files or lift its cap.
        for statement in ("SET temp_directory = '/tmp'", "SET max_temp_directory_size = '1TB'"):
            with pytest.raises(duckdb.Error):
                hostile.execute(statement)
    finally:
        engines.close()


@pytest.mark.parametrize("namespace", ["", ".", "..", "c_a/../c_b"])
def test_a_spill_folder_is_never_outside_its_root(tmp_path: Path, namespace: str) -> None:
    with pytest.raises(ValueError, match="namespace"):
        Spill.for_company(tmp_path, namespace, 1)


def test_folders_of_processes_that_no_longer_run_are_removed(tmp_path: Path) -> None:
    root = tmp_path / SPILL_FOLDER
    dead = root / "p999999999" / "c_x"  # beyond any pid the kernel hands out
    dead.mkdir(parents=True)
    (dead / "duckdb_temp_storage-0.tmp").write_bytes(b"x")
    spill = Spill.for_company(tmp_path, "c_" + "a" * 32, 1000)
    spill.prepare()
    assert spill.directory.is_dir() and not dead.parent.exists()
