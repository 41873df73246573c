"""The job API end to end: the Flask test client enqueues on a real Redis, a real rq worker in a
subprocess runs the job, the API shows its status and serves the artifact."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from api.app import create_app
from tests.api.conftest import make_game, umpire
from tests.conftest import make_app
from workers import jobs as work
from workers import queue as rqueue
from workers.dispatch import Dispatcher, NotifyStore

ROLL = {"kind": "roll", "dice": "2d6", "purpose": "fire", "target": {"compare": ">=", "value": 7}}
NOTE = {"kind": "note", "text": "SECRET-PLAN", "private": True}


@pytest.fixture
def setup(sqlite_config, rq_env, tmp_path):
    service = make_app(sqlite_config)
    app = create_app({"WARLOG_SERVICE": service, "TESTING": True, "REDIS_URL": rq_env.url,
                      "WARLOG_QUEUE": rq_env.queue, "WARLOG_ARTIFACT_DIR": str(tmp_path / "artifacts")})
    client = app.test_client()
    yield client, rq_env, Path(sqlite_config.sqlite_path).parent, tmp_path / "artifacts"
    service.close()


def _game(client, public=True):
    game = make_game(client, public=public)
    for n in range(6):
        assert game.order(client, "Blue" if n % 2 else "Red", ROLL, f"r{n}").status_code == 201
    assert game.order(client, "Blue", NOTE, "note").status_code == 201
    assert game.order(client, "Red", {"kind": "vp", "side": "Red", "delta": 2, "reason": "bridge"}, "vp").status_code == 201
    return game


def _post(client, rq_env, url, **kw):
    r = client.post(url, **kw)
    assert r.status_code == 202, r.json
    rq_env.job_ids.append(r.json["job_id"])
    assert r.headers["Location"] == r.json["status_url"]
    return r.json


def test_a_replay_is_made_by_a_worker_and_downloaded(setup):
    client, rq_env, data_dir, artifacts = setup
    game = _game(client)
    version = client.get(f"/api/v1/games/{game.game_id}/state").json["version"]
    job = _post(client, rq_env, f"/api/v1/games/{game.game_id}/replays", headers=game.seats["Blue"])
    assert job["version"] == version and job["audience"] == "public"
    queued = client.get(job["status_url"], headers=game.seats["Blue"]).json
    assert queued["status"] == "queued" and queued["progress"] == 0 and queued["result_url"] is None

    rq_env.work(data_dir)

    done = client.get(job["status_url"], headers=game.seats["Blue"]).json
    assert done["status"] == "finished" and done["progress"] == 100 and done["error"] is None
    assert done["result_url"] == job["result_url"]
    page = client.get(done["result_url"], headers=game.seats["Blue"])
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert "default-src 'none'" in page.headers["Content-Security-Policy"]
    assert page.headers["Content-Security-Policy"].startswith("sandbox allow-scripts;")  # an origin of its own
    html = page.get_data(as_text=True)
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.I)
    frames = client.get(done["result_url"] + "?format=json", headers=game.seats["Blue"]).json
    assert len(frames["frames"]) == version and frames["version"] == version
    assert "SECRET-PLAN" not in json.dumps(frames) and "SECRET-PLAN" not in html  # the public view
    latest = client.get(f"/api/v1/games/{game.game_id}/replays/latest?format=json").json  # a spectator
    assert latest == frames

    # Asked again at the same version: the same job, and no new artifact is made.
    files = {p.name: p.stat().st_mtime_ns for p in artifacts.iterdir()}
    again = _post(client, rq_env, f"/api/v1/games/{game.game_id}/replays", headers=game.seats["Red"])
    assert again["job_id"] == job["job_id"]
    assert client.get(again["status_url"]).json["status"] == "finished"
    assert {p.name: p.stat().st_mtime_ns for p in artifacts.iterdir()} == files


def test_an_umpire_gets_the_full_replay(setup):
    client, rq_env, data_dir, _ = setup
    game = _game(client, public=False)
    ump = umpire(client, game)
    job = _post(client, rq_env, f"/api/v1/games/{game.game_id}/replays", headers=ump)
    assert job["audience"] == "umpire"
    rq_env.work(data_dir)
    assert client.get(job["status_url"], headers=ump).json["status"] == "finished"
    full = client.get(job["result_url"] + "?format=json", headers=ump).get_data(as_text=True)
    assert "SECRET-PLAN" in full
    # A seat of the same private game gets no umpire artifact, and a stranger not even the job.
    assert client.get(job["result_url"], headers=game.seats["Red"]).status_code == 404
    assert client.get(job["status_url"]).status_code == 404


def test_statistics_of_one_game(setup):
    client, rq_env, data_dir, _ = setup
    game = _game(client)
    job = _post(client, rq_env, f"/api/v1/games/{game.game_id}/statistics")
    rq_env.work(data_dir)
    done = client.get(job["status_url"]).json
    assert done["status"] == "finished" and done["progress"] == 100
    body = client.get(done["result_url"]).json
    assert body["dice"]["all"]["d6"]["n"] == 12 and 0 <= body["dice"]["all"]["d6"]["p"] <= 1
    assert set(body["luck"]) == {"Blue", "Red"} and body["luck"]["Blue"]["rolls"] == 3
    assert body["vp"]["final"]["Red"] == 2
    svg = client.get(f"/api/v1/games/{game.game_id}/statistics?chart=faces")
    assert svg.status_code == 200 and svg.mimetype == "image/svg+xml" and svg.get_data(as_text=True).startswith("<svg")
    assert client.get(f"/api/v1/games/{game.game_id}/statistics?chart=pie").status_code == 422


def test_statistics_across_games(setup):
    client, rq_env, data_dir, _ = setup
    games = [_game(client) for _ in range(3)]
    private = _game(client, public=False)
    for g in games[:2]:
        assert g.order(client, "Blue", {"kind": "end", "winner": "Blue", "reason": "r"}, "end").status_code == 201
    job = _post(client, rq_env, "/api/v1/statistics?ruleset=freeform")
    again = _post(client, rq_env, "/api/v1/statistics?ruleset=freeform")
    assert again["job_id"] == job["job_id"]
    rq_env.work(data_dir)
    assert client.get(job["status_url"]).json["status"] == "finished"
    body = client.get("/api/v1/statistics?ruleset=freeform").json
    out = body["rulesets"]["freeform"]
    assert out["games"] == 3 and out["ended"] == 2 and out["win_rate"]["Blue"]["wins"] == 2
    assert out["operations"]["roll"] == 18 and out["dice"]["d6"]["n"] == 36
    assert private.game_id not in json.dumps(body)
    assert client.post("/api/v1/statistics?ruleset=chess").status_code == 422


def test_a_failing_job_is_retried_then_shown_failed_with_its_error(setup, sqlite_config):
    from tests.integration.rawstore import RawStore

    client, rq_env, data_dir, _ = setup
    game = _game(client)
    job = _post(client, rq_env, f"/api/v1/games/{game.game_id}/replays")
    with RawStore(sqlite_config) as raw:
        raw.delete(game.game_id, 3)  # the log is damaged after the job was asked for
    done = rq_env.work(data_dir)
    assert done.stderr.count("DamagedLog") + done.stdout.count("DamagedLog") >= 4  # the first run and 3 retries
    shown = client.get(job["status_url"]).json
    assert shown["status"] == "failed" and shown["retries_left"] == 0
    assert shown["error"].startswith("DamagedLog: line 3: the stored log of game") and "Traceback" not in shown["error"]
    assert shown["result_url"] is None


def test_unknown_jobs_and_missing_artifacts_are_404(setup):
    client, _, _, _ = setup
    game = _game(client)
    assert client.get("/api/v1/jobs/warlog-nothing").status_code == 404
    assert client.get("/api/v1/jobs/whatever").status_code == 404
    assert client.get(f"/api/v1/games/{game.game_id}/replays/latest").status_code == 404
    assert client.get(f"/api/v1/games/{game.game_id}/replays/abc").status_code == 404
    assert client.get(f"/api/v1/games/{game.game_id}/statistics").status_code == 404
    assert client.get("/api/v1/statistics?ruleset=freeform").status_code == 404


def test_no_redis_is_a_503_problem(sqlite_config, tmp_path):
    service = make_app(sqlite_config)
    app = create_app({"WARLOG_SERVICE": service, "TESTING": True, "REDIS_URL": "redis://127.0.0.1:1/0",
                      "WARLOG_ARTIFACT_DIR": str(tmp_path)})
    client = app.test_client()
    game = make_game(client, public=True)
    r = client.post(f"/api/v1/games/{game.game_id}/replays")
    service.close()
    assert r.status_code == 503 and r.json["code"] == "queue_unavailable" and r.headers["Retry-After"] == "5"


def _dispatcher(client, rq_env, artifacts: Path) -> Dispatcher:
    """A dispatcher as ``warlog worker`` runs it: ended games' replays go to the jobs queue."""
    q = rqueue.get_queue(rq_env.conn, rq_env.queue)
    return Dispatcher(client.application.extensions["warlog"], lambda row: None, email_enabled=False,
                      on_end=lambda gid, version: work.enqueue_replays(q, gid, version, str(artifacts)))


def test_the_dispatcher_queues_an_ended_game_s_replays_once(setup):
    client, rq_env, data_dir, artifacts = setup
    game = _game(client)
    ump = umpire(client, game)
    r = game.order(client, "Blue", {"kind": "end", "winner": "Blue", "reason": "r"}, "end")
    assert r.status_code == 201
    version = r.json["version"]
    ids = [f"warlog-replay-{game.game_id}-v{version}-{audience}" for audience in ("umpire", "public")]
    rq_env.job_ids.extend(ids)
    assert client.get(f"/api/v1/jobs/{ids[1]}").status_code == 404  # the order queues nothing itself
    first, second = _dispatcher(client, rq_env, artifacts), _dispatcher(client, rq_env, artifacts)
    assert first.run_batch() > 0
    queued = rqueue.get_queue(rq_env.conn, rq_env.queue)
    assert sorted(queued.get_job_ids()) == sorted(ids)
    assert client.get(f"/api/v1/jobs/{ids[1]}").json["status"] == "queued"
    # A second dispatcher, or this one restarted before it wrote its progress, finds the same jobs.
    NotifyStore.for_service(client.application.extensions["warlog"])._run(
        "UPDATE {t}warlog_notify_games SET seq = 0 WHERE game_id = ?", (game.game_id,))
    NotifyStore.for_service(client.application.extensions["warlog"])._run(
        "UPDATE {t}warlog_notify_tracking SET position = 0 WHERE name = 'dispatch'")
    assert second.run_batch() > 0
    assert sorted(queued.get_job_ids()) == sorted(ids)
    rq_env.work(data_dir)
    public = client.get(f"/api/v1/games/{game.game_id}/replays/latest?format=json").json
    full = client.get(f"/api/v1/games/{game.game_id}/replays/latest?format=json", headers=ump).json
    assert public["version"] == full["version"] == version
    assert public["viewer"] == "public" and full["viewer"] == "umpire"
    # Made once: a third pass over the log queues nothing new.
    NotifyStore.for_service(client.application.extensions["warlog"])._run(
        "UPDATE {t}warlog_notify_games SET seq = 0 WHERE game_id = ?", (game.game_id,))
    second.run_batch()
    assert queued.get_job_ids() == []
    assert {client.get(f"/api/v1/jobs/{jid}").json["status"] for jid in ids} == {"finished"}


def test_replay_on_end_is_on_unless_turned_off():
    assert work.replay_on_end({}) and work.replay_on_end({"WARLOG_REPLAY_ON_END": "1"})
    assert not work.replay_on_end({"WARLOG_REPLAY_ON_END": "0"}) and not work.replay_on_end({"WARLOG_REPLAY_ON_END": "off"})
    with pytest.raises(ValueError, match="WARLOG_REPLAY_ON_END"):
        work.replay_on_end({"WARLOG_REPLAY_ON_END": "sometimes"})


def test_artifacts_under_a_relative_data_dir_are_downloaded(sqlite_config, rq_env, tmp_path, monkeypatch):
    """As under ``make run``: WARLOG_DATA_DIR relative (``var``) and no WARLOG_ARTIFACT_DIR, the web
    process and the worker in the same working directory. The download was a 500: the worker
    wrote under the working directory, and ``send_file`` looked for the relative path under api/."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WARLOG_DATA_DIR", "data")
    monkeypatch.delenv("WARLOG_ARTIFACT_DIR", raising=False)
    service = make_app(sqlite_config)
    try:
        app = create_app({"WARLOG_SERVICE": service, "TESTING": True, "REDIS_URL": rq_env.url,
                          "WARLOG_QUEUE": rq_env.queue})
        client = app.test_client()
        game = _game(client)
        replay = _post(client, rq_env, f"/api/v1/games/{game.game_id}/replays")
        stats = _post(client, rq_env, f"/api/v1/games/{game.game_id}/statistics")
        rq_env.work(Path(sqlite_config.sqlite_path).parent, cwd=tmp_path)
        for job in (replay, stats):
            assert client.get(job["status_url"]).json["status"] == "finished"
            got = client.get(job["result_url"])
            assert got.status_code == 200, got.get_data(as_text=True)[:300]
        assert any((tmp_path / "data" / "artifacts").iterdir())
    finally:
        service.close()


def test_statistics_across_games_are_made_by_at_most_so_many_jobs_at_once(setup, monkeypatch):
    client, rq_env, data_dir, _ = setup
    client.application.config["WARLOG_STATISTICS_JOBS"] = 1  # read at start (api/app.py)
    game = _game(client)
    first = _post(client, rq_env, "/api/v1/statistics?ruleset=freeform")
    assert _post(client, rq_env, "/api/v1/statistics?ruleset=freeform")["job_id"] == first["job_id"]  # the same
    assert game.order(client, "Blue", ROLL, "one more").status_code == 201  # the log moved on: another job
    refused = client.post("/api/v1/statistics?ruleset=freeform")
    assert refused.status_code == 503 and refused.json["code"] == "statistics_busy"
    assert refused.headers["Retry-After"] == "30" and "WARLOG_STATISTICS_JOBS" in refused.json["detail"]
    rq_env.work(data_dir)
    assert _post(client, rq_env, "/api/v1/statistics?ruleset=freeform")["job_id"] != first["job_id"]


def test_replays_and_statistics_of_one_game_are_made_by_at_most_so_many_jobs_at_once(setup):
    """Each version of a game is a job of its own, and a seat moves the version on at will (an
    annotation, or a spectator token's once the game has ended: 120 writes a minute per token):
    one client queued a replay or statistics job of a large game for each, ahead of every other
    game's jobs and of the mails on the same queue. WARLOG_GAME_JOBS bounds a game's jobs."""
    client, rq_env, data_dir, _ = setup
    client.application.config["WARLOG_GAME_JOBS"] = 2  # read at start (api/app.py)
    game, other = _game(client), _game(client)
    replays, statistics = (f"/api/v1/games/{game.game_id}/{what}" for what in ("replays", "statistics"))
    first = _post(client, rq_env, replays, headers=game.seats["Blue"])
    assert _post(client, rq_env, statistics, headers=game.seats["Blue"])["job_id"] != first["job_id"]
    assert _post(client, rq_env, replays)["job_id"] == first["job_id"]  # the same version again: its job
    assert game.order(client, "Blue", ROLL, "one more").status_code == 201  # a new version: a new job
    for url in (replays, statistics):
        refused = client.post(url, headers=game.seats["Red"])
        assert refused.status_code == 503 and refused.json["code"] == "game_jobs_busy", refused.json
        assert refused.headers["Retry-After"] == "30" and "WARLOG_GAME_JOBS" in refused.json["detail"]
    _post(client, rq_env, f"/api/v1/games/{other.game_id}/replays")  # another game's are its own
    rq_env.work(data_dir)
    assert _post(client, rq_env, replays)["job_id"] != first["job_id"]  # made: room for the next


def test_old_artifacts_are_pruned_and_one_asked_for_again_is_made_again(setup, monkeypatch):
    client, rq_env, data_dir, artifacts = setup
    game = _game(client)
    job = _post(client, rq_env, f"/api/v1/games/{game.game_id}/statistics")
    rq_env.work(data_dir)
    made = sorted(p.name for p in artifacts.iterdir())
    assert len(made) == 3  # the JSON and two charts
    old = artifacts / "stats-old-v1-public.json"
    old.write_text("{}")
    os.utime(old, (time.time() - 8 * 86400,) * 2)  # past the default 7 days
    replay = _post(client, rq_env, f"/api/v1/games/{game.game_id}/replays")
    monkeypatch.setenv("WARLOG_ARTIFACT_MAX_FILES", "2")
    rq_env.work(data_dir)  # the replay's job prunes: the old file, and all but the newest two
    kept = sorted(p.name for p in artifacts.iterdir())
    assert kept == [f"replay-{game.game_id}-v{replay['version']}-public.{ext}" for ext in ("html", "json")]
    assert not old.exists() and client.get(job["result_url"]).status_code == 404
    again = _post(client, rq_env, f"/api/v1/games/{game.game_id}/statistics")
    assert again["job_id"] == job["job_id"] and client.get(again["status_url"]).json["status"] == "queued"
    monkeypatch.delenv("WARLOG_ARTIFACT_MAX_FILES")
    rq_env.work(data_dir)
    assert client.get(job["result_url"]).status_code == 200


@pytest.mark.parametrize("cap, expected", [(4, (202, None)), (1, (503, "game_jobs_busy"))])
def test_the_game_jobs_lock_expiring_mid_enqueue_is_no_503(setup, monkeypatch, caplog, cap, expected):
    """The count and the enqueue of WARLOG_GAME_JOBS hold a Redis lock that expires (so a web worker
    that dies never holds it for good). A Redis slow enough to outlast it made the release raise
    LockNotOwnedError once the job was queued: a 503 queue_unavailable for a job that was queued, and
    the refusal game_jobs_busy turned into the same 503. The lock lost is logged now, and the answer
    is the one the request earned."""
    import api.jobs

    client, rq_env, _, _ = setup
    client.application.config["WARLOG_GAME_JOBS"] = cap
    game = _game(client)
    if cap == 1:  # the cap is met by another job of the game
        _post(client, rq_env, f"/api/v1/games/{game.game_id}/statistics")
    with client.application.app_context():
        conn = api.jobs.redis()  # the app's Redis connection, kept for every request
    lock = conn.lock
    monkeypatch.setattr(conn, "lock", lambda name, **kw: lock(name, **{**kw, "timeout": 0.2}))
    enqueue, waiting = api.jobs._enqueue, api.jobs._jobs_waiting

    def slow(real):
        def run(*args, **kwargs):
            time.sleep(0.4)  # the lock has expired meanwhile
            return real(*args, **kwargs)
        return run

    monkeypatch.setattr(api.jobs, "_enqueue", slow(enqueue))
    monkeypatch.setattr(api.jobs, "_jobs_waiting", slow(waiting))
    r = client.post(f"/api/v1/games/{game.game_id}/replays")
    assert (r.status_code, (r.json or {}).get("code")) == expected, r.get_data(as_text=True)
    if r.status_code == 202:
        rq_env.job_ids.append(r.json["job_id"])
        assert client.get(r.json["status_url"]).json["status"] in ("queued", "started", "finished")
    assert "expired before" in caplog.text
