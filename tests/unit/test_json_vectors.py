"""tests/data/json_vectors.json, which the browser's verifier is checked against
(tests/browser/test_browser_verify.py), is what Python's repr, json.dumps and rfc8785 write today."""

from __future__ import annotations

import importlib.util
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"


def test_the_json_vectors_file_is_what_the_reference_implementations_write():
    spec = importlib.util.spec_from_file_location("make_json_vectors", DATA / "make_json_vectors.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert (DATA / "json_vectors.json").read_text(encoding="utf-8") == gen.dumps(gen.vectors())
