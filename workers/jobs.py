"""The rq jobs: thin, importable wrappers over the pure functions of replay.py and stats.py.

Each takes plain values (a game id, the version to make it at, the audience, the artifact
folder), reads the log from the store named by the environment (``config_from_env``: the same
WARLOG_DATA_DIR / WARLOG_DATABASE_URL as the web process), and writes its artifacts atomically
(a temporary file, then a rename) under a name made of the game id, the version and the
audience. A job whose artifacts already exist returns them at once: a second run for the same
version gives the same artifact.

Audiences (docs/workers.md): ``umpire`` (the full log) and ``public`` (what a spectator may see,
``domain.visibility`` with viewer None). The API serves umpires the first and everyone else —
seats included — the second, so a seat never sees what it could not see in the game itself.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from domain.rulesets import UMPIRE, find_ruleset
from domain.service import Warlog
from domain.storage import config_from_env, data_dir_from_env, private_dir, whole_from_env
from domain.visibility import filter_lines
from workers import replay as replaying
from workers import stats as statistics
from workers.queue import Progress, enqueue_once, job_id

AUDIENCES: dict[str, str | None] = {"umpire": UMPIRE, "public": None}


# =============================================================================== artifacts ====
def artifact_dir(environ: Mapping[str, str] | None = None) -> Path:
    """WARLOG_ARTIFACT_DIR, else WARLOG_DATA_DIR/artifacts (default var/artifacts), absolute:
    the web process hands it to the worker, and Flask's ``send_file`` would resolve a relative
    path against the app's folder, not the working directory."""
    environ = os.environ if environ is None else environ
    explicit = (environ.get("WARLOG_ARTIFACT_DIR") or "").strip()
    if explicit:
        return Path(explicit).resolve()
    return data_dir_from_env(environ) / "artifacts"


def artifact_path(directory: str | Path, kind: str, game_id: str, version: int, audience: str, ext: str) -> Path:
    return Path(directory) / f"{kind}-{game_id}-v{version}-{audience}.{ext}"


def latest_artifact(directory: str | Path, kind: str, game_id: str, audience: str, ext: str) -> tuple[int, Path] | None:
    """The artifact of the highest version made so far, or None."""
    best = None
    for path in Path(directory).glob(f"{kind}-{game_id}-v*-{audience}.{ext}"):
        try:
            version = int(path.name[len(f"{kind}-{game_id}-v"):].split("-", 1)[0])
        except ValueError:
            continue
        if best is None or version > best[0]:
            best = (version, path)
    return best


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so a reader sees the old file or the whole new one, never a part."""
    private_dir(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)  # for this user only (0600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def artifact_limits(environ: Mapping[str, str] | None = None) -> tuple[float, int]:
    """(the most seconds an artifact is kept, the most files kept): WARLOG_ARTIFACT_MAX_AGE_DAYS
    (default 7, as long as rq keeps a finished job) and WARLOG_ARTIFACT_MAX_FILES (default 2000)."""
    environ = os.environ if environ is None else environ
    raw = (environ.get("WARLOG_ARTIFACT_MAX_AGE_DAYS") or "").strip()
    try:
        days = float(raw or 7)
    except ValueError:
        days = float("nan")
    if not days > 0:  # NaN too
        raise ValueError(f"WARLOG_ARTIFACT_MAX_AGE_DAYS must be a number of days above 0, not {raw!r}")
    return days * 86400, whole_from_env("WARLOG_ARTIFACT_MAX_FILES", 2000, environ, minimum=1)


def prune_artifacts(directory: str | Path, max_age: float, max_files: int, now: float | None = None) -> list[str]:
    """Delete the files of ``directory`` written more than ``max_age`` seconds ago, then the oldest
    beyond ``max_files``; returns their names. Asked for again, a pruned artifact is made again
    (api/jobs.py queues its job afresh)."""
    now = time.time() if now is None else now
    files = []
    for path in Path(directory).iterdir():
        with contextlib.suppress(FileNotFoundError):  # another worker's prune got there first
            if path.is_file():
                files.append((path.stat().st_mtime, path))
    files.sort(reverse=True)  # the newest first
    doomed = [path for n, (mtime, path) in enumerate(files) if n >= max_files or mtime < now - max_age]
    for path in doomed:
        path.unlink(missing_ok=True)
    return [path.name for path in doomed]


def _pruned(directory: str | Path) -> None:
    prune_artifacts(directory, *artifact_limits())


# ==================================================================================== jobs ====
def job(func: Callable) -> Callable:
    """Record a failure's message (one line, no traceback) in job.meta['error'] for the API,
    then let rq see the exception, so it retries and finally marks the job failed."""

    @functools.wraps(func)
    def run(*args: Any, **kwargs: Any) -> Any:
        progress = Progress()
        try:
            result = func(*args, progress=progress, **kwargs)
        except Exception as exc:
            progress.set(progress.job.meta.get("progress", 0) if progress.job else 0,
                         error=f"{type(exc).__name__}: {exc}")
            raise
        progress.set(100, error=None)
        return result

    return run


def _service() -> Warlog:
    return Warlog(config_from_env())


def _lines(service: Warlog, game_id: str, version: int) -> list[dict]:
    lines = service.lines(game_id, limit=version)
    if len(lines) != version:
        raise ValueError(f"game {game_id} has {len(lines)} events, not {version}")
    return lines


def _audience(audience: str) -> str | None:
    if audience not in AUDIENCES:
        raise ValueError(f"audience is one of {', '.join(AUDIENCES)}, not {audience!r}")
    return AUDIENCES[audience]


@job
def make_replay(game_id: str, version: int, audience: str = "public", directory: str | None = None, *,
                progress: Progress) -> dict:
    """The replay of ``game_id`` at ``version`` for ``audience``: frames JSON and the HTML file."""
    directory = directory or str(artifact_dir())
    viewer = _audience(audience)
    paths = {ext: artifact_path(directory, "replay", game_id, version, audience, ext) for ext in ("json", "html")}
    if all(p.exists() for p in paths.values()):
        return {k: str(p) for k, p in paths.items()}
    service = _service()
    try:
        lines = _lines(service, game_id, version)
    finally:
        service.close()
    made = replaying.frames(lines, viewer, progress=lambda done, total: progress(done, total, share=(0, 90)))
    write_atomic(paths["json"], json.dumps(made, separators=(",", ":")))
    write_atomic(paths["html"], replaying.replay_html(made, log=replaying.seen_log(lines, viewer)))
    _pruned(directory)
    return {k: str(p) for k, p in paths.items()}


@job
def game_statistics(game_id: str, version: int, audience: str = "public", directory: str | None = None, *,
                    progress: Progress) -> dict:
    """One game's statistics at ``version`` for ``audience``: JSON and two SVG charts."""
    directory = directory or str(artifact_dir())
    viewer = _audience(audience)
    paths = {"json": artifact_path(directory, "stats", game_id, version, audience, "json"),
             "faces": artifact_path(directory, "stats", game_id, version, audience, "faces.svg"),
             "vp": artifact_path(directory, "stats", game_id, version, audience, "vp.svg")}
    if all(p.exists() for p in paths.values()):
        return {k: str(p) for k, p in paths.items()}
    service = _service()
    try:
        lines = _lines(service, game_id, version)
    finally:
        service.close()
    progress(1, 3)
    rules = find_ruleset(lines[0]["data"]["ruleset"])
    made = statistics.game_statistics(filter_lines(rules, lines, viewer))
    made["audience"] = audience
    progress(2, 3)
    for name, svg in statistics.charts(made).items():
        write_atomic(paths[name], svg)
    write_atomic(paths["json"], json.dumps(made, indent=1))
    _pruned(directory)
    return {k: str(p) for k, p in paths.items()}


def iter_games(service: Warlog, game_ids: list[str], viewer: str | None,
               skipped: list[str]) -> Iterator[list[dict]]:
    """Each game's lines as ``viewer`` may see them, one game at a time; a game whose log cannot
    be read is left out and named in ``skipped``."""
    for gid in game_ids:
        try:
            lines = service.lines(gid)
            rules = find_ruleset(lines[0]["data"]["ruleset"])
        except Exception:  # a damaged or vanished game must not sink the whole report
            skipped.append(gid)
            continue
        yield filter_lines(rules, lines, viewer)


def across_name(ruleset: str | None, sandboxes: bool = False) -> str:
    """The name of statistics across games in artifact file names: the ruleset (or "all"), with
    "+sandboxes" when sandboxes are counted too."""
    return (ruleset or "all") + ("+sandboxes" if sandboxes else "")


@job
def statistics_across(ruleset: str | None, game_ids: list[str], key: str, directory: str | None = None,
                      sandboxes: bool = False, *, progress: Progress) -> dict:
    """Statistics across ``game_ids`` (those of ``ruleset``; all rulesets when None), as the
    public sees them, streamed one game at a time; sandboxes only when ``sandboxes``. Written as
    ``across-<name>-<key>.json`` and copied to ``across-<name>-latest.json`` (``across_name``)."""
    directory = Path(directory or artifact_dir())
    name = across_name(ruleset, sandboxes)
    path = directory / f"across-{name}-{key}.json"
    latest = directory / f"across-{name}-latest.json"
    if not path.exists():
        service = _service()
        skipped: list[str] = []
        acc = statistics.CrossGame(ruleset, sandboxes=sandboxes)
        try:
            for n, lines in enumerate(iter_games(service, game_ids, None, skipped), start=1):
                acc.add(lines)
                if n % 100 == 0:
                    progress(n, len(game_ids), share=(0, 95))
        finally:
            service.close()
        made = {"ruleset": ruleset, "key": key, "games_asked": len(game_ids), "unreadable": skipped, **acc.result()}
        write_atomic(path, json.dumps(made, indent=1))
    write_atomic(latest, path.read_text(encoding="utf-8"))
    _pruned(directory)
    return {"json": str(path)}


# ========================================================================= at a game's end ====
def replay_on_end(environ: Mapping[str, str] | None = None) -> bool:
    """WARLOG_REPLAY_ON_END: whether the dispatcher queues an ended game's replays (default on)."""
    environ = os.environ if environ is None else environ
    raw = (environ.get("WARLOG_REPLAY_ON_END") or "").strip().lower()
    if raw in ("", "1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"WARLOG_REPLAY_ON_END is 1 or 0 (on or off), not {raw!r}")


def enqueue_replays(q: Any, game_id: str, version: int, directory: str) -> None:
    """Queue the replays of ``game_id`` at ``version`` for every audience, each once: the same
    job ids as ``POST .../replays``, so asking again finds the job already queued or made."""
    for audience in AUDIENCES:
        enqueue_once(q, make_replay, job_id("replay", game_id, f"v{version}", audience),
                     game_id, version, audience, directory,
                     meta={"kind": "replay", "game_id": game_id, "version": version, "audience": audience},
                     made=artifact_path(directory, "replay", game_id, version, audience, "html").exists)
