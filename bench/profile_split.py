"""Where a worker's samples go: py-spy's collapsed stacks (``--format raw``) split by module.

    python -m bench.profile_split FOLDER_OR_FILE ...

Each sample goes to the part of the first frame, from the innermost outwards, whose module is
named below; frames of other modules (the standard library, gevent, greenlet) are passed over,
so ``json.dumps`` counts for whoever called it. A stack with no named frame is the web stack
when it holds gevent or granian frames (the event loop between requests), else "other". A
sample inside a transaction's commit is counted once more, as "the commit" (a part of
persistence: on SQLite the fsync of its log). A sample whose innermost frame is a wait (gevent's hub in its C loop, a thread waiting on a
condition) is idle, not CPU, and left out: py-spy cannot tell a wait inside C code from work.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

PARTS = ("web stack", "warlog's HTTP layer", "warlog domain", "persistence", "other")

# (module path prefix, part), first match wins: warlog's own persistence before the rest of domain/.
PREFIXES = (
    ("gunicorn/", "web stack"), ("flask/", "web stack"), ("werkzeug/", "web stack"), ("granian/", "web stack"),
    ("jinja2/", "web stack"), ("itsdangerous/", "web stack"), ("click/", "web stack"),
    ("api/", "warlog's HTTP layer"), ("marshmallow/", "warlog's HTTP layer"), ("apispec/", "warlog's HTTP layer"),
    ("domain/storage.py", "persistence"), ("domain/pgrecorder.py", "persistence"),
    ("projections/store.py", "persistence"),
    ("eventsourcing/", "persistence"), ("psycopg/", "persistence"), ("psycopg_pool/", "persistence"),
    ("sqlite3/", "persistence"), ("redis/", "other"),
    ("domain/", "warlog domain"), ("projections/", "warlog domain"),
)
LOOPS = ("gevent/", "granian/")
COMMIT = "the commit"  # persistence samples inside a transaction's commit (SQLite: its fsync of the WAL)
COMMITS = ("SQLiteConnection.commit (eventsourcing/sqlite.py", "Connection.commit (psycopg/")
IDLE = ("Hub.run (gevent/hub.py", "Condition.wait (threading.py", "Event.wait (threading.py",
        "BaseSelector.select (selectors.py", "EpollSelector.select (selectors.py")
FRAME = re.compile(r"\(([^():]+):\d+\)$")


def module(frame: str) -> str:
    """The module path of one frame, e.g. ``flask/app.py`` of ``Flask.__call__ (flask/app.py:1536)``."""
    found = FRAME.search(frame.strip())
    return found.group(1) if found else ""


def part(stack: list[str]) -> str:
    paths = [module(f) for f in stack]
    for path in reversed(paths):
        for prefix, name in PREFIXES:
            if path.startswith(prefix) or f"/{prefix}" in path:
                return name
    if any(path.startswith(LOOPS) or any(f"/{loop}" in path for loop in LOOPS) for path in paths):
        return "web stack"
    return "other"


def split(paths: list[Path]) -> Counter:
    """Samples per part over every collapsed-stack file in ``paths`` (files or folders)."""
    counts: Counter = Counter()
    files = [f for p in paths for f in (sorted(p.glob("*.txt")) if p.is_dir() else [p])]
    for f in files:
        for line in f.read_text(encoding="utf-8", errors="replace").splitlines():
            stack, _, count = line.rpartition(" ")
            frames = stack.split(";")
            if stack and count.isdigit() and not frames[-1].startswith(IDLE):
                counts[part(frames)] += int(count)
                if any(f.startswith(COMMITS) for f in frames):
                    counts[COMMIT] += int(count)
    return counts


def shares(counts: Counter) -> dict[str, float]:
    """Each part's share of the samples (the commit's too, a part of persistence)."""
    total = sum(counts[name] for name in PARTS)
    return {name: counts[name] / total if total else 0.0 for name in (*PARTS, COMMIT)}


def main(argv: list[str]) -> int:
    counts = split([Path(a) for a in argv])
    total = sum(counts[name] for name in PARTS)
    print(f"{total} samples")
    for name, share in shares(counts).items():
        print(f"  {name:22} {share:6.1%}  ({counts[name]})")  # the commit is a part of persistence
    return 0 if total else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
