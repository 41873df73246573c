"""The projection runner on real SQLite and PostgreSQL: batches, crashes, rebuilds, read-your-writes,
time travel (map checkpoints), and the projector process."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest

from domain.errors import WarlogError
from projections import folds
from projections.runner import CHECKPOINT_EVERY, NAMES, Projections
from projections.store import ProjectionStore
from tests.conftest import new_freeform_game

EVERY = 4  # map checkpoints after every 4th seq here, so short games have many
ROLL = {"kind": "roll", "dice": "2d6", "purpose": "fire", "target": {"compare": ">=", "value": 7}}


def play(app, game_id, orders=12, seed=1):
    rnd = random.Random(seed)
    for i in range(orders):
        seat = rnd.choice(["Blue", "Red"])
        order = rnd.choice([ROLL, {"kind": "vp", "side": seat, "delta": rnd.choice([-1, 2]), "reason": "r"},
                            {"kind": "advance"}, {"kind": "note", "text": f"n{i}", "private": rnd.random() < .5}])
        app.submit_order(game_id, seat, f"{seed}-{i}", order)


def snapshot(projections, game_ids):
    """Every stored view and index row of these games."""
    views = projections.store.load(game_ids, NAMES)
    index = {r["game_id"]: r for r in projections.store.query_index(game_ids)}
    return views, index


def rebuilt(app, game_ids):
    fresh = Projections(app)
    fresh.rebuild()
    return snapshot(fresh, game_ids)


def stored(projections, game_ids):
    """Every stored view, index row and map checkpoint of these games."""
    return (*snapshot(projections, game_ids), {gid: projections.store.checkpoints(gid) for gid in game_ids})


def rebuilt_stored(app, game_ids):
    fresh = Projections(app, every=EVERY)
    fresh.rebuild()
    return stored(fresh, game_ids)


def test_incremental_catch_up_in_batches_equals_a_full_rebuild(app):
    games = [new_freeform_game(app) for _ in range(3)]
    projections = Projections(app, every=EVERY)
    for n, gid in enumerate(games):
        play(app, gid, seed=n)
        projections.catch_up(limit=7)  # batches that cut through orders and games
    play(app, games[0], orders=5, seed=9)
    projections.catch_up(limit=3)
    assert projections.position() == projections.head()
    incremental = stored(projections, games)
    assert incremental == rebuilt_stored(app, games)
    for gid in games:  # and the stored views are what the folds give from the log
        lines = app.lines(gid)
        for name in NAMES:
            assert incremental[0][gid][name] == folds.fold(name, lines)
        assert incremental[0][gid]["map"]["state"] == app.get_game(gid).state
        version = incremental[0][gid]["map"]["version"]
        assert sorted(incremental[2][gid]) == list(range(EVERY, version + 1, EVERY))
        for seq, checkpoint in incremental[2][gid].items():
            assert checkpoint == folds.fold("map", lines[:seq])


def test_a_crash_mid_batch_resumes_without_skipping_or_applying_twice(app, monkeypatch):
    games = [new_freeform_game(app) for _ in range(2)]
    for n, gid in enumerate(games):
        play(app, gid, seed=n)
    projections = Projections(app, every=EVERY)
    projections.catch_up(limit=10)
    play(app, games[1], orders=6, seed=5)
    play(app, games[0], orders=6, seed=6)
    before, kept = projections.position(), stored(projections, games)
    real, calls = ProjectionStore.write_position, []

    def crashing(self, c, names, position):
        c.execute(self.sql("SELECT max(version) AS v FROM {t}warlog_projection_views"))
        calls.append((position, c.fetchone()["v"]))  # the batch's views are written ...
        raise RuntimeError("power cut")  # ... and its position is not

    monkeypatch.setattr(ProjectionStore, "write_position", crashing)
    with pytest.raises(RuntimeError):
        projections.run_batch(limit=1000)
    assert calls == [(projections.head(), max(app.get_game(gid).version for gid in games))]
    assert projections.position() == before  # nothing of the batch committed
    assert stored(projections, games) == kept
    monkeypatch.setattr(ProjectionStore, "write_position", real)
    projections.catch_up()
    assert stored(projections, games) == rebuilt_stored(app, games)


def test_a_write_that_fails_during_a_catch_up_stops_it_at_the_batch_before(app, monkeypatch):
    """A write that fails is raised by ``catch_up``: nothing after the last stored batch is
    stored, and the next catch-up ends where a rebuild does."""
    games = [new_freeform_game(app) for _ in range(3)]
    for n, gid in enumerate(games):
        play(app, gid, orders=15, seed=n)
    projections = Projections(app, every=EVERY)
    real, written = ProjectionStore.write_position, []

    def failing_third(self, c, names, position):
        written.append(position)
        if len(written) == 3:
            raise RuntimeError("connection lost")
        real(self, c, names, position)

    monkeypatch.setattr(ProjectionStore, "write_position", failing_third)
    with pytest.raises(RuntimeError, match="connection lost"):
        projections.catch_up(limit=7)
    assert projections.position() == projections.last_position == written[1] == 14
    monkeypatch.setattr(ProjectionStore, "write_position", real)
    play(app, games[2], orders=3, seed=9)
    projections.catch_up(limit=7)
    assert projections.position() == projections.head()
    assert stored(projections, games) == rebuilt_stored(app, games)


def test_a_catch_up_stops_between_batches_when_asked(app):
    games = [new_freeform_game(app) for _ in range(2)]
    for n, gid in enumerate(games):
        play(app, gid, orders=10, seed=n)
    projections = Projections(app, every=EVERY)
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 3

    done = projections.catch_up(limit=5, stop=stop)
    assert done == 15 and projections.position() == 15 < projections.head()
    assert projections.catch_up(limit=5) == projections.head() - 15
    assert stored(projections, games) == rebuilt_stored(app, games)


def test_rebuild_of_one_game_rebuilds_that_game_only(app):
    one, other = new_freeform_game(app), new_freeform_game(app)
    play(app, one)
    play(app, other, seed=2)
    projections = Projections(app, every=EVERY)
    projections.catch_up()
    kept = stored(projections, [one, other])
    projections.store.drop()  # forget everything, then rebuild one game
    assert projections.rebuild(one) == app.get_game(one).version
    views, index, checkpoints = stored(projections, [one, other])
    assert views[one] == kept[0][one] and index[one] == kept[1][one] and checkpoints[one] == kept[2][one]
    assert views[other] == {} and other not in index and checkpoints[other] == {}


def test_a_read_catches_a_game_up_to_its_current_version(app):
    gid = new_freeform_game(app)
    projections = Projections(app, every=EVERY)
    projections.catch_up()
    app.submit_order(gid, "Blue", "late", {"kind": "vp", "side": "Blue", "delta": 5, "reason": "late"})
    views = projections.current(gid, ("map", "vp"))
    assert views["map"]["version"] == app.get_game(gid).version
    assert views["map"]["state"]["vp"]["Blue"] == 5
    assert projections.position() < projections.head()  # the projector has not been there
    projections.catch_up()  # and it does not apply the order a second time
    assert stored(projections, [gid]) == rebuilt_stored(app, [gid])


def test_time_travel_equals_the_aggregate_at_that_version(app):
    from api.app import create_app
    from domain.access import AccessStore

    gid = new_freeform_game(app)
    play(app, gid, orders=120, seed=3)
    AccessStore.for_service(app).register_game(gid, True, ["Blue", "Red"])
    client = create_app({"WARLOG_SERVICE": app, "TESTING": True}).test_client()
    version = app.get_game(gid).version
    assert version > 2 * CHECKPOINT_EVERY  # the read starts from a stored checkpoint
    for k in random.Random(4).sample(range(1, version + 1), 12) + [CHECKPOINT_EVERY, version]:
        body = client.get(f"/api/v1/games/{gid}/state?at={k}").json  # a spectator: private notes hidden
        game = app.get_game(gid, version=k)
        assert body["version"] == k and body["state"] == game.view(None)
        assert body["whose_move"] == game.whose_move() and body["ended"] == game.ended
    assert sorted(Projections(app).store.checkpoints(gid)) == list(range(CHECKPOINT_EVERY, version + 1,
                                                                         CHECKPOINT_EVERY))


def play_with_take_backs(app, gid, orders, seed):
    rnd = random.Random(seed)
    for i in range(orders):
        play(app, gid, orders=1, seed=seed * 1000 + i)
        if rnd.random() < 0.2:
            try:
                seat = rnd.choice(["Blue", "Red"])
                app.request_take_back(gid, seat)
                app.answer_take_back(gid, "Red" if seat == "Blue" else "Blue", rnd.random() < 0.7)
            except WarlogError:
                pass  # nothing of that seat's to take back


def test_the_state_at_every_seq_from_checkpoints_equals_a_full_fold(app):
    gid = new_freeform_game(app)
    play_with_take_backs(app, gid, orders=30, seed=11)
    projections = Projections(app, every=EVERY)
    projections.catch_up(limit=9)
    lines = app.lines(gid)
    assert len(projections.store.checkpoints(gid)) == len(lines) // EVERY
    for k in range(1, len(lines) + 1):
        at = projections.map_at(gid, k)
        assert at == folds.fold("map", lines[:k]), k
        game = app.get_game(gid, version=k)
        assert (at["version"], at["state"], at["whose_move"], at["ended"]) == (k, game.state, game.whose_move(),
                                                                              game.ended), k


def test_the_state_at_a_seq_when_checkpoints_are_missing_or_behind(app):
    gid = new_freeform_game(app)
    play(app, gid, orders=25, seed=12)
    without = Projections(app, every=10**9)  # a game projected before checkpoints existed
    without.catch_up()
    lines = app.lines(gid)
    assert without.store.checkpoints(gid) == {}
    projections = Projections(app, every=EVERY)
    k = len(lines) - 1
    assert projections.map_at(gid, k) == folds.fold("map", lines[:k])
    # the checkpoints passed on the way were written, and are what a rebuild writes
    assert sorted(projections.store.checkpoints(gid)) == list(range(EVERY, k + 1, EVERY))
    assert projections.store.checkpoints(gid) == {s: v for s, v in rebuilt_stored(app, [gid])[2][gid].items() if s <= k}
    # orders the projector has not seen: a read catches the view up (and its checkpoints) first
    play(app, gid, orders=6, seed=13)
    projections.current(gid, ("map",))
    lines = app.lines(gid)
    assert max(projections.store.checkpoints(gid)) == len(lines) - len(lines) % EVERY
    for k in range(len(lines) - 2 * EVERY, len(lines) + 1):
        assert projections.map_at(gid, k) == folds.fold("map", lines[:k])


def test_the_state_at_every_seq_of_a_falklands_game(sqlite_app):
    from bench.games import play_to_events
    from bench.sources import SOURCES

    app = sqlite_app
    gid = play_to_events(app, SOURCES["falklands"](), random.Random(5), 200, finish=False)
    projections = Projections(app, every=25)
    projections.catch_up()
    lines = app.lines(gid)
    view = folds.map_empty()
    for k, line in enumerate(lines, 1):
        view = folds.map_apply(view, line)
        assert projections.map_at(gid, k) == view, k
    for k in random.Random(6).sample(range(1, len(lines) + 1), 10):
        assert projections.map_at(gid, k)["state"] == app.get_game(gid, version=k).state


def test_the_state_at_a_seq_past_a_legacy_non_finite_number(app, store_config):
    """``map_at`` folds the rows after a checkpoint as the projector does: a row holding a NaN
    where the map state keeps it (VP totals; a row written outside warlog, no order can make one)
    still gives the per-line fold, and the checkpoints it writes on the way are strict JSON."""
    import json

    from tests.integration.rawstore import RawStore

    gid = new_freeform_game(app)
    play(app, gid, orders=3, seed=21)
    app.submit_order(gid, "Blue", "vp", {"kind": "vp", "side": "Blue", "delta": 2, "reason": "r"})
    play(app, gid, orders=9, seed=22)
    with RawStore(store_config) as raw:
        for version, topic, state in raw.events(gid):
            if topic.endswith("VPScored"):
                raw.set_state(gid, version, json.dumps({**json.loads(state), "total": float("nan")}).encode())
    Projections(app, every=10**9).catch_up()  # no checkpoints: map_at folds from seq 1
    projections = Projections(app, every=EVERY)
    lines = app.lines(gid)

    def text(value):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)

    assert "NaN" in text(folds.fold("map", lines))
    for k in (len(lines), 2, len(lines) - 1):
        assert text(projections.map_at(gid, k)) == text(folds.fold("map", lines[:k])), k
    stored = projections.store.checkpoints(gid)
    assert sorted(stored) == list(range(EVERY, len(lines) + 1, EVERY))
    assert not any("NaN" in text(v) for v in stored.values())


def test_the_state_at_a_seq_past_a_damaged_row_is_a_damaged_log(app, store_config):
    """A row deleted or garbled after the nearest checkpoint: ``map_at`` names the game as a
    DamagedLog (the API's 409), as the export lines it used to read did; before it, it answers."""
    from domain.errors import DamagedLog
    from tests.integration.rawstore import RawStore

    deleted, garbled = new_freeform_game(app), new_freeform_game(app)
    for gid in (deleted, garbled):
        play(app, gid, orders=10, seed=23)
    projections = Projections(app, every=EVERY)
    projections.catch_up()
    expected = {gid: folds.fold("map", app.lines(gid)[:EVERY + 1]) for gid in (deleted, garbled)}
    with RawStore(store_config) as raw:
        raw.delete(deleted, EVERY + 2)
        raw.set_state(garbled, EVERY + 2, b"{not json")
    for gid in (deleted, garbled):
        assert projections.map_at(gid, EVERY + 1) == expected[gid]
        with pytest.raises(DamagedLog, match=gid):
            projections.map_at(gid, EVERY + 3)


def test_read_your_writes_through_the_http_api(client):
    from tests.api.conftest import make_game

    game = make_game(client)
    path = f"/api/v1/games/{game.game_id}"
    for i, delta in enumerate((2, 3, -1)):
        r = game.order(client, "Blue", {"kind": "vp", "side": "Blue", "delta": delta, "reason": "r"}, f"v{i}")
        assert r.status_code == 201
        version = r.json["version"]
        vp = client.get(f"{path}/vp", headers=game.seats["Blue"])
        assert vp.headers["ETag"] == f'"{version}"' and vp.json["track"][-1]["delta"] == delta
        state = client.get(f"{path}/state", headers=game.seats["Blue"]).json
        assert state["version"] == version
        assert client.get(path, headers=game.seats["Blue"]).json["version"] == version
        history = client.get(f"{path}/history", headers=game.seats["Blue"]).json
        assert history["turns"][-1]["phases"][-1]["operations"][-1]["order_id"] == f"v{i}"
    assert state["state"]["vp"]["Blue"] == 4


def _env(config) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARLOG_")}
    if config.kind == "sqlite":
        env["WARLOG_DATA_DIR"] = os.path.dirname(config.sqlite_path)
    else:
        from tests.conftest import PG_URL

        env["WARLOG_DATABASE_URL"] = f"{PG_URL}?schema={config.postgres['POSTGRES_SCHEMA']}"
    env["WARLOG_PROJECTOR_POLL_SECONDS"] = "0.1"
    return env


def _warlog() -> str:
    return os.path.join(os.path.dirname(sys.executable), "warlog")


def test_the_projector_process_catches_up_and_stops_on_sigterm(app, store_config):
    gid = new_freeform_game(app)
    play(app, gid, orders=5)
    projections = Projections(app, every=EVERY)
    proc = subprocess.Popen([_warlog(), "projector"], env=_env(store_config),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 30
        while projections.position() < projections.head() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert projections.position() == projections.head()
        play(app, gid, orders=3, seed=7)  # a later order is picked up by the running process
        while projections.position() < projections.head() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert snapshot(projections, [gid]) == rebuilt(app, [gid])
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, out
    assert "projector stopped" in out


def test_rebuild_projections_command_rebuilds_one_game(app, store_config):
    one, other = new_freeform_game(app), new_freeform_game(app)
    play(app, one)
    done = subprocess.run([_warlog(), "rebuild-projections", "--game", one], env=_env(store_config),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert f"{app.get_game(one).version}/{app.get_game(one).version} events" in done.stderr
    views, _ = snapshot(Projections(app), [one, other])
    assert views[one]["history"] == folds.fold("history", app.lines(one)) and views[other] == {}


def test_a_read_answers_with_what_it_folded_when_the_store_cannot_take_the_write(sqlite_config, caplog):
    """SQLite's write lock held outside warlog past the lock timeout (1 s): read-your-writes and
    a map at a seq still answer with the folds of the log; what they would have stored for the
    next reader is not stored (a warning says so), and is stored by the next read after."""
    from dataclasses import replace

    from tests.conftest import make_app
    from tests.projections.test_batch import per_line, play_freeform
    from tests.reliability.faults import writes_blocked

    app = make_app(replace(sqlite_config, lock_timeout=1))
    try:
        gid = new_freeform_game(app)
        play_freeform(app, gid, CHECKPOINT_EVERY, 4)  # past a map checkpoint's seq
        projections = Projections(app)
        lines = app.lines(gid)
        assert len(lines) > CHECKPOINT_EVERY
        with writes_blocked(sqlite_config), caplog.at_level("WARNING", logger="warlog.projector"):
            assert projections.current(gid) == per_line(lines, CHECKPOINT_EVERY)[0]
            seq = len(lines) - 1
            assert projections.map_at(gid, seq) == folds.fold("map", lines[:seq])
            assert projections.store.load([gid], NAMES)[gid] == {}  # nothing was stored
        assert "views caught up to version" in caplog.text and "map checkpoints up to seq" in caplog.text
        assert projections.current(gid) == per_line(lines, CHECKPOINT_EVERY)[0]
        assert projections.store.load([gid], NAMES)[gid] == per_line(lines, CHECKPOINT_EVERY)[0]
    finally:
        app.close()
