"""The README's five-minute tour, run verbatim: every block fenced ```sh tour, in order, in one bash session
against a fresh `svc up` on free ports, as a newcomer in another shell would run them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.up import Up

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
_BLOCK = re.compile(r"^```sh tour\n(.*?)^```$", re.MULTILINE | re.DOTALL)
_DONE = "@@tour-block-done "


def tour_blocks(markdown: str) -> list[str]:
    return _BLOCK.findall(markdown)


def promised(block: str) -> str | None:
    """The output a block promises: its last line, when that is a comment (``# ...``)."""
    last = block.rstrip("\n").splitlines()[-1]
    return last.removeprefix("# ") if last.startswith("# ") else None


def session(blocks: list[str]) -> str:
    """One bash script: each block verbatim under ``set -e``, then a marker on a line of its own (a block's
    last output may not end its line), so a failing command stops the tour and the markers tell which block
    it was in."""
    parts = ["set -o pipefail"]
    for number, block in enumerate(blocks):
        parts += ["set -e", block.rstrip("\n"), "set +e", f"echo; echo '{_DONE}{number}'"]
    return "\n".join(parts) + "\n"


def test_the_tour_is_split_into_blocks_with_their_promises() -> None:
    blocks = tour_blocks(README.read_text())
    assert len(blocks) >= 6
    assert any("fireTimes" in block and promised(block) for block in blocks)
    script = session(["echo one\n", "false\necho never\n"])
    run = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=False)
    assert run.returncode == 1 and run.stdout == f"one\n\n{_DONE}0\n"


def test_the_readme_tour_runs_verbatim(up: Up) -> None:
    up.start()
    blocks = tour_blocks(README.read_text())
    env = up.env | {
        "SVC_URL": up.url,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    run = subprocess.run(
        ["bash", "-c", session(blocks)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    outputs = run.stdout.split("\n")
    done = [int(line.removeprefix(_DONE)) for line in outputs if line.startswith(_DONE)]
    assert run.returncode == 0 and done == list(range(len(blocks))), (
        f"block {len(done)} failed (exit {run.returncode}):\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    )
    by_block: list[list[str]] = [[]]
    for line in outputs:
        if line.startswith(_DONE):
            by_block.append([])
        elif line:
            by_block[-1].append(line)
    for number, block in enumerate(blocks):
        expected = promised(block)
        if expected is not None:
            assert by_block[number][-1] == expected, f"block {number} printed {by_block[number]}"
    text = run.stdout
    assert '"keyType"' in text, "whoami answered"
    assert '"success":true' in text.replace(" ", ""), "the trigger accepted the delivery"
    assert "delivery: SUCCESS" in text, "the history shows the delivered webhook"
    rows = by_block[len(blocks) - 1][-1]
    assert "A-1001" in rows and "A-1003" in rows, "the query's rows"
