"""WARLOG_GAME_JOBS holds under concurrency: web workers (processes of their own) asked at once for
a game's replays and statistics queue no more jobs than the cap. Counted apart from the enqueue,
each request counted the same jobs waiting and all of them queued theirs."""

from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path

from tests.api.conftest import make_game, umpire
from tests.conftest import make_app
from workers import queue as rqueue

PROCESSES = 4  # one for each job of one version (below)


def _ask(data_dir: str, redis_url: str, queue: str, artifacts: str, url: str, headers: dict, cap: int,
         barrier, met, answers) -> None:
    """One web worker of its own (a process, its own app on the shared store and Redis) sending
    one POST when every other is ready."""
    from api.app import create_app
    from domain.service import Warlog
    from domain.storage import config_from_env

    service = Warlog(config_from_env({"WARLOG_DATA_DIR": data_dir}))
    app = create_app({"WARLOG_SERVICE": service, "TESTING": True, "REDIS_URL": redis_url, "WARLOG_QUEUE": queue,
                      "WARLOG_ARTIFACT_DIR": artifacts, "WARLOG_GAME_JOBS": cap})
    client = app.test_client()
    # The burst at its worst: each request counts the jobs waiting before any queues its own (the
    # processes meet after counting; a request that counts alone waits for the others a moment only).
    from api import jobs

    counted = jobs._jobs_waiting

    def count_then_meet(*starts):
        found = counted(*starts)
        try:
            met.wait(timeout=3)
        except threading.BrokenBarrierError:
            pass
        return found

    jobs._jobs_waiting = count_then_meet
    barrier.wait(timeout=60)
    r = client.post(url, headers=headers)
    answers.put((r.status_code, (r.json or {}).get("job_id") or (r.json or {}).get("code")))
    service.close()


def test_a_burst_from_several_processes_queues_no_more_of_a_games_jobs_than_warlog_game_jobs(
        sqlite_config, rq_env, tmp_path):
    cap = 1
    service = make_app(sqlite_config)
    from api.app import create_app

    client = create_app({"WARLOG_SERVICE": service, "TESTING": True, "REDIS_URL": rq_env.url,
                         "WARLOG_QUEUE": rq_env.queue}).test_client()
    game = make_game(client, public=True)
    # Four jobs of one version: a replay and statistics, each for the public and for the umpire.
    asks = [(f"/api/v1/games/{game.game_id}/{what}", who) for what in ("replays", "statistics")
            for who in (game.seats["Blue"], umpire(client, game))]
    service.close()
    spawn = multiprocessing.get_context("spawn")
    barrier, met, answers = spawn.Barrier(PROCESSES), spawn.Barrier(PROCESSES), spawn.Queue()
    data_dir = str(Path(sqlite_config.sqlite_path).parent)
    procs = [spawn.Process(target=_ask, args=(data_dir, rq_env.url, rq_env.queue, str(tmp_path / "artifacts"),
                                              *asks[n % len(asks)], cap, barrier, met, answers))
             for n in range(PROCESSES)]
    for p in procs:
        p.start()
    got = [answers.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    jobs = {jid for status, jid in got if status == 202}
    rq_env.job_ids.extend(jobs)
    assert {status for status, _ in got} <= {202, 503}, got
    assert len(jobs) == cap, got
    prefix = tuple(rqueue.job_id(kind, game.game_id, "") for kind in ("replay", "stats"))
    assert len([j for j in rqueue.get_queue(rq_env.conn, rq_env.queue).get_job_ids() if j.startswith(prefix)]) == cap
