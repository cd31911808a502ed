"""README.md stays a first page: short, with the tour a test runs, and no settings table of its own."""

from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_is_at_most_200_lines_and_leaves_the_settings_to_the_reference() -> None:
    text = README.read_text()
    assert len(text.splitlines()) <= 200
    assert text.count("```sh tour\n") >= 6, "the tour the e2e test runs"
    assert "| `SVC_" not in text, "settings are documented in docs/configuration.md (make docs)"
    assert "docs/configuration.md" in text
