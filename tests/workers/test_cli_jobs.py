"""``warlog replay`` and ``warlog stats`` (issue 29, item 11): the CLI queues the job over the
HTTP API of a live server, shows its progress while a real rq worker (a subprocess) makes it, and
downloads the artifact."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from api.app import create_app
from api.cli import main
from tests.api.test_client import live_server
from tests.conftest import make_app


@pytest.fixture
def live(sqlite_config, rq_env, tmp_path, monkeypatch):
    """A live server on a real Redis queue; ``work()`` runs a burst worker on its store."""
    for name in ("WARLOG_SERVER", "WARLOG_TOKEN", "http_proxy", "HTTP_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WARLOG_CLIENT_CONFIG", str(tmp_path / "me" / "client.json"))
    service = make_app(sqlite_config)
    app = create_app({"WARLOG_SERVICE": service, "REDIS_URL": rq_env.url, "WARLOG_QUEUE": rq_env.queue,
                      "WARLOG_ARTIFACT_DIR": str(tmp_path / "artifacts")})
    httpd = live_server(app)
    data_dir = Path(sqlite_config.sqlite_path).parent
    yield type("Live", (), {"url": f"http://127.0.0.1:{httpd.server_port}", "rq": rq_env,
                            "work": lambda self: rq_env.work(data_dir)})()
    httpd.shutdown()
    httpd.server_close()
    service.close()


def run(capsys, *argv) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def played(live, capsys) -> str:
    code, out, err = run(capsys, "new", "freeform", "--option", "sides=Blue,Red", "--public", "--server", live.url)
    game_id = out.split()[1]
    for seat in ("Blue", "Red"):
        assert run(capsys, "join", game_id, "--as", seat, "--handle", seat.lower())[0] == 0
    for n in range(3):
        assert run(capsys, "order", game_id, "roll", "2d6", "--purpose", f"volley {n}", "--as", "Blue")[0] == 0
    run(capsys, "order", game_id, "vp", "Red", "+1", "--reason", "the ridge", "--as", "Red")
    return game_id


def later(work, delay: float = 1.5) -> threading.Thread:
    """A worker that starts after the CLI has begun waiting (so it shows 'queued' first)."""
    thread = threading.Thread(target=lambda: (time.sleep(delay), work()))
    thread.start()
    return thread


def test_replay_queues_the_job_shows_progress_and_downloads_the_page(live, capsys, tmp_path):
    game_id = played(live, capsys)
    version = json.loads(run(capsys, "show", game_id, "--json")[1])["version"]
    worker = later(live.work)
    page = tmp_path / "replay.html"
    code, out, err = run(capsys, "replay", game_id[:8], "-o", page)
    worker.join()
    assert code == 0, err
    assert f"replay of game {game_id} at version {version} (public view): queued" in err
    assert f"replay of game {game_id} at version {version} (public view): finished 100%" in err
    assert f"wrote {page}" in err and "works offline" in err
    html = page.read_text()
    assert html.lstrip().lower().startswith("<!doctype html") and "volley 2" in html
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".replay-")] == []

    frames = tmp_path / "frames.json"
    code, out, err = run(capsys, "replay", game_id, "--format", "json", "-o", frames)  # made: no worker needed
    assert code == 0, err
    assert len(json.loads(frames.read_text())["frames"]) == version


def test_stats_downloads_the_json_and_a_chart(live, capsys, tmp_path, monkeypatch):
    game_id = played(live, capsys)
    worker = later(live.work)
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "stats", game_id)
    worker.join()
    assert code == 0, err
    (made,) = [p for p in tmp_path.iterdir() if p.name.startswith(f"stats-{game_id[:8]}-v")]
    stats = json.loads(made.read_text())
    assert stats["game_id"] == game_id and made.name == f"stats-{game_id[:8]}-v{stats['version']}.json"
    assert sum(stats["dice"]["by_seat"]["Blue"]["d6"]["faces"].values()) == 6  # 3 rolls of 2d6
    assert stats["vp"]["final"] == {"Blue": 0, "Red": 1}
    code, out, err = run(capsys, "stats", game_id, "--chart", "faces", "-o", tmp_path / "faces.svg")
    assert code == 0 and (tmp_path / "faces.svg").read_text().lstrip().startswith("<svg"), err


def test_waiting_without_a_worker_says_a_worker_must_run_and_gives_up_cleanly(live, capsys, tmp_path, monkeypatch):
    import api.cli

    game_id = played(live, capsys)
    monkeypatch.setattr(api.cli, "WORKER_HINT_SECONDS", 0.2)
    code, out, err = run(capsys, "replay", game_id, "--wait", "1", "-o", tmp_path / "r.html")
    assert code == 2
    assert "a worker must run ('warlog worker', or 'make run')" in err
    assert "still queued after 1 s" in err and "it finds the same job" in err
    assert not (tmp_path / "r.html").exists()


def test_a_job_the_worker_gave_up_on_exits_1_with_its_one_line_error(live, capsys, tmp_path, sqlite_config):
    from tests.integration.rawstore import RawStore

    game_id = played(live, capsys)

    def damage_then_work():
        with RawStore(sqlite_config) as raw:
            raw.delete(game_id, 3)  # the log is damaged after the job was asked for
        live.work()

    worker = later(damage_then_work)
    code, out, err = run(capsys, "replay", game_id, "-o", tmp_path / "r.html")
    worker.join()
    assert code == 1
    assert "warlog replay: the replay job failed: DamagedLog: line 3: " in err
    assert not (tmp_path / "r.html").exists() and "Traceback" not in err


def test_a_wait_shorter_than_the_worker_hint_still_says_a_worker_must_run(live, capsys, tmp_path):
    """README: 'show its progress ... until a worker ('warlog worker', or 'make run') has made it'.
    With --wait below the 10 s after which the hint is shown, a job nobody took ended in 'run the
    command again later' alone: a new user who started only 'warlog serve' was not told why."""
    game_id = played(live, capsys)
    code, out, err = run(capsys, "replay", game_id, "--wait", "1", "-o", tmp_path / "r.html")
    assert code == 2
    assert "still queued after 1 s" in err and "a worker must run ('warlog worker', or 'make run')" in err, err
