"""The Python client in clients/python/ is the generator's output for the committed docs/openapi.json (run
`make client` after `make openapi`), and its hand-written layer's pure parts behave."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import httpx
import pytest
from svc_client.easy import SvcError, answer_json, part_count

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "python"


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("svc_client_generate", CLIENT / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_committed_client_is_what_the_generator_makes_of_the_document(tmp_path: Path) -> None:
    generator = load_generator()
    fresh = tmp_path / "svc_client"
    generator.generate_into(fresh)
    committed = generator.generated_files(CLIENT / "svc_client")
    regenerated = generator.generated_files(fresh)
    assert sorted(committed) == sorted(regenerated), "the client drifted: run `make client` and commit"
    changed = [name for name in committed if committed[name] != regenerated[name]]
    assert changed == [], f"the client drifted in {changed[:5]}: run `make client` and commit"


def test_the_hand_written_layer_is_kept_by_regeneration() -> None:
    generator = load_generator()
    assert {"easy.py", "py.typed"} <= generator.HAND_WRITTEN
    assert all((CLIENT / "svc_client" / name).is_file() for name in generator.HAND_WRITTEN)


def test_an_upload_takes_a_part_per_started_part_size() -> None:
    assert part_count(0, 16) == 1
    assert part_count(16, 16) == 1
    assert part_count(17, 16) == 2


def test_error_answers_raise_with_the_api_messages() -> None:
    assert answer_json(httpx.Response(202, json={"executionId": "e1"})) == {"executionId": "e1"}
    with pytest.raises(SvcError) as refused:
        answer_json(httpx.Response(401, json={"error": "Invalid API key for this webhook."}))
    assert refused.value.status == 401 and refused.value.errors == ["Invalid API key for this webhook."]
    with pytest.raises(SvcError, match="400: bad one; bad two"):
        answer_json(httpx.Response(400, json={"errors": ["bad one", "bad two"]}))
