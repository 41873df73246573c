"""Slow work through rq: replays, statistics of one game and across games, and jobs.

``POST`` asks for an artifact and answers 202 with the job's id and where to watch it; the job id
is derived from what is asked (kind, game, version, audience), so asking twice for the same
version returns the same job and, once made, the same artifact (workers/queue.py). ``GET
/api/v1/jobs/{job_id}`` shows status, progress (0-100), the error of a failed job (one line,
never a traceback) and, when finished, the artifact's URL.

Visibility: artifacts are made per audience — ``umpire`` (the full log) and ``public`` (what a
spectator may see, domain/visibility with viewer None). An umpire gets the first, everyone else
(seats, the admin, spectators of a public game) the second; so a seat's replay does not show
even its own hidden notes (docs/workers.md). Cross-game statistics cover public games only, as a
spectator sees them.
"""

from __future__ import annotations

import hashlib
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from flask import Blueprint, Response, current_app, jsonify, send_file, url_for
from marshmallow import Schema, fields, validate
from redis import Redis
from redis.exceptions import LockError, LockNotOwnedError, RedisError

from api.auth import UMPIRE, access, caller_for
from api.games import service
from api.problems import ApiProblem
from api.schemas import QueryWhole, query_args
from domain.rulesets import find_ruleset
from workers import jobs as work
from workers import queue as rqueue

bp = Blueprint("jobs", __name__, url_prefix="/api/v1")

# An artifact page may run its own inline script and style, and nothing else: no network at all.
# ``sandbox`` without allow-same-origin gives it an origin of its own, so a script in a replay
# (the log's text is player input) can never read the pages' tokens (localStorage) or call the
# API as the viewer; nor may another site frame it.
ARTIFACT_CSP = ("sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
MEDIA = {"html": "text/html; charset=utf-8", "json": "application/json", "svg": "image/svg+xml"}


# ================================================================================ plumbing ====
def redis() -> Redis:
    conn = current_app.extensions.get("warlog_redis")
    if conn is None:
        conn = current_app.config.get("WARLOG_REDIS") or rqueue.connection(current_app.config.get("REDIS_URL"))
        current_app.extensions["warlog_redis"] = conn
    return conn


def queue():
    return rqueue.get_queue(redis(), current_app.config.get("WARLOG_QUEUE"))


def artifacts() -> Path:
    """The artifact folder, absolute (``work.artifact_dir`` says why)."""
    return Path(current_app.config.get("WARLOG_ARTIFACT_DIR") or work.artifact_dir()).resolve()


def _unavailable(exc: Exception) -> ApiProblem:
    current_app.logger.warning("job queue unavailable: %s", exc)
    return ApiProblem("queue_unavailable", "the job queue (Redis) does not answer; try again shortly",
                      {"Retry-After": "5"})


def _enqueue(func, jid: str, *args, meta: dict, artifact: Path):
    try:
        found, _ = rqueue.enqueue_once(queue(), func, jid, *args, meta=meta, made=artifact.exists)
    except RedisError as exc:
        raise _unavailable(exc) from None
    return found


def _jobs_waiting(*starts: str) -> set[str]:
    """The ids of the jobs queued, taken by a worker, running or waiting for a retry whose ids
    start with one of ``starts`` (read in the order a job goes, so none moving on is missed)."""
    q = queue()
    try:
        ids = [*q.get_job_ids(), *q.intermediate_queue.get_job_ids(), *q.started_job_registry.get_job_ids(),
               *q.scheduled_job_registry.get_job_ids()]
    except RedisError as exc:
        raise _unavailable(exc) from None
    return {jid for jid in ids if jid.startswith(starts)}


CAP_LOCK_SECONDS = 10  # the jobs cap's lock expires after this, so that a web worker that died never holds it


@contextmanager
def _cap_lock(name: str) -> Iterator[None]:
    """Hold the Redis lock ``name`` (waiting CAP_LOCK_SECONDS at most: LockError, a RedisError). A lock
    that expired before its release (a Redis slow enough to outlast it) is logged, not raised: the
    job was queued, or refused, by then, and a 503 would say neither; the count it guarded may have
    let one job more in."""
    lock = redis().lock(name, timeout=CAP_LOCK_SECONDS, blocking_timeout=CAP_LOCK_SECONDS)
    if not lock.acquire():
        raise LockError(f"the lock {name} was not had within {CAP_LOCK_SECONDS} s")
    try:
        yield
    finally:
        try:
            lock.release()
        except LockNotOwnedError:
            current_app.logger.warning("the jobs cap's lock %s expired before it was released (after %s s)",
                                       name, CAP_LOCK_SECONDS)


def _enqueue_within(cap: int, starts: tuple[str, ...], refusal: tuple[str, str, str], func, jid: str, *args,
                    meta: dict, artifact: Path):
    """``_enqueue`` unless ``cap`` jobs whose ids start with one of ``starts`` are waiting (0: no
    cap): 503 ``refusal`` (code, what, setting). The same job asked for again is never refused: it
    is found, not queued. The count and the enqueue are one step under a Redis lock of ``starts``:
    counted apart, a burst in several web workers counted the same jobs and each queued its own."""
    if not cap:
        return _enqueue(func, jid, *args, meta=meta, artifact=artifact)
    try:
        with _cap_lock("warlog:jobs-cap:" + "|".join(starts)):
            waiting = _jobs_waiting(*starts)
            if jid not in waiting and len(waiting) >= cap:
                code, what, setting = refusal
                raise ApiProblem(code, f"{len(waiting)} jobs of {what} are queued or running ({setting}: {cap}); "
                                 "ask again once one has finished", {"Retry-After": "30"})
            return _enqueue(func, jid, *args, meta=meta, artifact=artifact)
    except RedisError as exc:  # Redis gone, or the lock not had in time (redis-py's LockError is one)
        raise _unavailable(exc) from None


def _accepted(jid: str, result_url: str, **extra):
    status_url = url_for("jobs.get_job", job_id=jid)
    body = {"job_id": jid, "status_url": status_url, "result_url": result_url, **extra}
    response = jsonify(body)
    response.status_code = 202
    response.headers["Location"] = status_url
    return response


def _audience(caller) -> str:
    return "umpire" if caller.role == UMPIRE else "public"


def _artifact(path: Path, media: str, download_name: str) -> Response:
    response = send_file(path, mimetype=media, download_name=download_name, as_attachment=False, max_age=0)
    response.headers["Content-Security-Policy"] = ARTIFACT_CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def _pick(kind: str, game_id: str, version: str | int | None, audience: str, ext: str) -> tuple[int, Path]:
    if version in (None, "latest"):
        found = work.latest_artifact(artifacts(), kind, game_id, audience, ext)
        if found is None:
            raise ApiProblem("not_found", f"no {kind} of this game has been made yet; POST to make one")
        return found
    path = work.artifact_path(artifacts(), kind, game_id, int(version), audience, ext)
    if not path.exists():
        raise ApiProblem("not_found", f"no {kind} of this game at version {version} has been made yet")
    return int(version), path


class FormatQuery(Schema):
    format = fields.String(load_default="html", validate=validate.OneOf(["html", "json"]),
                           metadata={"description": "html (the offline replay page) or json (the frames)"})


class StatsQuery(Schema):
    version = QueryWhole(validate=validate.Range(min=1, max=2**53),
                             metadata={"description": "the version made at (default: the latest made)"})
    chart = fields.String(validate=validate.OneOf(["faces", "vp"]),
                          metadata={"description": "an SVG chart instead of the JSON: faces or vp"})


class RulesetQuery(Schema):
    ruleset = fields.String(required=True, validate=validate.Length(min=1, max=100),
                            metadata={"description": "the ruleset, e.g. freeform"})
    sandbox = fields.Boolean(load_default=False,
                             metadata={"description": "true: count sandboxes too (they are left out by default)"})


GAME_JOBS = ("replay", "stats")  # the kinds of job of one game, counted together against WARLOG_GAME_JOBS


# ================================================================================= replays ====
@bp.post("/games/<game_id>/replays")
def post_replay(game_id: str):
    """Make (or find) the replay of the game at its current version for the caller's audience."""
    return _game_job(game_id, "replay", "replay", work.make_replay, "jobs.get_replay")


@bp.get("/games/<game_id>/replays/<version>")
def get_replay(game_id: str, version: str):
    """The replay made at ``version`` (or ``latest``): ``?format=html`` (default) or ``json``."""
    caller = caller_for(game_id)
    fmt = query_args(FormatQuery)["format"]
    # ASCII digits, few enough: int() refuses "²" (which isdigit takes) and 4,300 digits and more.
    if version != "latest" and not (version.isascii() and version.isdigit() and len(version) <= 16
                                    and 0 < int(version) < 2**53):
        raise ApiProblem("not_found", "a replay's version is a positive whole number or 'latest'")
    made, path = _pick("replay", caller.game_id, version, _audience(caller), fmt)
    return _artifact(path, MEDIA[fmt], f"replay-{caller.game_id}-v{made}.{fmt}")


# ============================================================================== statistics ====
@bp.post("/games/<game_id>/statistics")
def post_statistics(game_id: str):
    return _game_job(game_id, "stats", "statistics", work.game_statistics, "jobs.get_statistics")


def _game_job(game_id: str, prefix: str, kind: str, func: Callable[..., Any], endpoint: str):
    """Queue (or find) the job making ``kind`` of the game at its current version for the
    caller's audience: the id says what it makes, so asking twice gives the same job."""
    caller = caller_for(game_id)
    version = service().get_game(caller.game_id).version
    audience = _audience(caller)
    jid = rqueue.job_id(prefix, caller.game_id, f"v{version}", audience)
    # Each version is a job, and a seat moves the version on at will: bounded per game, so that one
    # client's game cannot fill the queue ahead of every other game's jobs (and the mails).
    _enqueue_within(current_app.config["WARLOG_GAME_JOBS"],
                    tuple(rqueue.job_id(kind, caller.game_id, "") for kind in GAME_JOBS),
                    ("game_jobs_busy", "this game's replays and statistics", "WARLOG_GAME_JOBS"),
                    func, jid, caller.game_id, version, audience, str(artifacts()),
                    meta={"kind": kind, "game_id": caller.game_id, "version": version, "audience": audience},
                    artifact=work.artifact_path(artifacts(), prefix, caller.game_id, version, audience,
                                                "html" if prefix == "replay" else "json"))
    return _accepted(jid, url_for(endpoint, game_id=caller.game_id, version=version),
                     version=version, audience=audience)


@bp.get("/games/<game_id>/statistics")
def get_statistics(game_id: str):
    caller = caller_for(game_id)
    params = query_args(StatsQuery)
    chart = params.get("chart")
    ext = f"{chart}.svg" if chart else "json"
    made, path = _pick("stats", caller.game_id, params.get("version"), _audience(caller), ext)
    return _artifact(path, MEDIA["svg" if chart else "json"], f"stats-{caller.game_id}-v{made}.{ext}")


@bp.post("/statistics")
def post_cross_statistics():
    """Statistics across every public game of a ruleset, as a spectator sees them; sandboxes
    only with ``?sandbox=true``."""
    params = query_args(RulesetQuery)
    ruleset, sandboxes = params["ruleset"], params["sandbox"]
    find_ruleset(ruleset)  # unknown_ruleset before anything is queued
    ids = sorted(access().public_game_ids())
    head = service().recorder.max_notification_id() or 0
    key = hashlib.sha256(("\n".join(ids) + f"\n{head}").encode()).hexdigest()[:20]
    name = work.across_name(ruleset, sandboxes)
    jid = rqueue.job_id("across", name, key)
    _enqueue_within(current_app.config["WARLOG_STATISTICS_JOBS"], (rqueue.job_id("across", ""),),
                    ("statistics_busy", "statistics across games", "WARLOG_STATISTICS_JOBS"),
                    work.statistics_across, jid, ruleset, ids, key, str(artifacts()), sandboxes,
                    meta={"kind": "statistics_across", "ruleset": ruleset, "sandbox": sandboxes, "games": len(ids)},
                    artifact=artifacts() / f"across-{name}-{key}.json")
    asked = {"sandbox": "true"} if sandboxes else {}
    return _accepted(jid, url_for("jobs.get_cross_statistics", ruleset=ruleset, **asked), ruleset=ruleset, games=len(ids))


@bp.get("/statistics")
def get_cross_statistics():
    params = query_args(RulesetQuery)
    ruleset = params["ruleset"]
    path = artifacts() / f"across-{work.across_name(ruleset, params['sandbox'])}-latest.json"
    if "/" in ruleset or not path.exists():
        raise ApiProblem("not_found", f"no statistics across {ruleset} games have been made yet; POST to make them")
    return _artifact(path, MEDIA["json"], f"statistics-{ruleset}.json")


# ==================================================================================== jobs ====
@bp.get("/jobs/<job_id>")
def get_job(job_id: str):
    """A job's status: queued, started, scheduled (waiting to be retried), finished, failed, …"""
    try:
        found = rqueue.fetch(job_id, redis()) if rqueue.is_ours(job_id) else None
        if found is None:
            raise ApiProblem("not_found", f"no job {job_id} (unknown, or expired after a week)")
        shown = rqueue.status_of(found)
    except RedisError as exc:
        raise _unavailable(exc) from None
    meta = shown.pop("meta")
    if meta.get("game_id"):
        caller_for(meta["game_id"])  # a private game's jobs are as invisible as the game
    result_url = None
    if shown["status"] == "finished":
        kind, gid, version = meta.get("kind"), meta.get("game_id"), meta.get("version")
        if kind == "replay":
            result_url = url_for("jobs.get_replay", game_id=gid, version=version)
        elif kind == "statistics":
            result_url = url_for("jobs.get_statistics", game_id=gid, version=version)
        elif kind == "statistics_across":
            result_url = url_for("jobs.get_cross_statistics", ruleset=meta.get("ruleset"),
                                 **({"sandbox": "true"} if meta.get("sandbox") else {}))
    return jsonify({"id": found.id, "kind": meta.get("kind"), "game_id": meta.get("game_id"), **shown,
                    "result_url": result_url})
