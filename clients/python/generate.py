"""Regenerate ``svc_client`` from docs/openapi.json (``make client``); the drift test calls ``generate_into``.

The generated modules are replaced whole; the hand-written ones (``HAND_WRITTEN``) are never touched."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = HERE / "svc_client"
DOCUMENT = HERE.parent.parent / "docs" / "openapi.json"
CONFIG = HERE / "generator.yaml"
# Files of the package that the generator does not write: the thin layer and the typing marker.
HAND_WRITTEN = frozenset({"easy.py", "py.typed"})


def generate_into(target: Path, document: Path = DOCUMENT) -> None:
    """The generated package, written to ``target`` (which must not exist), in this process: the generator
    runs no post-hook (``generator.yaml``), so the text depends on its version and the document alone."""
    from openapi_python_client import generate
    from openapi_python_client.config import Config, ConfigFile, MetaType

    config = Config.from_sources(
        ConfigFile.load_from_path(CONFIG), MetaType.NONE, document, "utf-8", False, target
    )
    problems = [error for error in generate(config=config) if error.level.name == "ERROR"]
    if problems:
        raise RuntimeError("; ".join(str(problem.header) for problem in problems))


def generated_files(root: Path) -> dict[str, bytes]:
    """Each generated file under ``root`` by its relative path (hand-written files and caches left out)."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.name not in HAND_WRITTEN and "__pycache__" not in path.parts
    }


def regenerate() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        fresh = Path(scratch) / "svc_client"
        generate_into(fresh)
        for entry in PACKAGE.iterdir() if PACKAGE.exists() else ():
            if entry.name in HAND_WRITTEN:
                continue
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        PACKAGE.mkdir(exist_ok=True)
        for entry in fresh.iterdir():
            shutil.move(str(entry), PACKAGE / entry.name)


if __name__ == "__main__":
    regenerate()
