"""What the projector stores (batches cutting through games, split views written a chunk at a
time, checkpoints, the games index) against the folds of each game's whole log: on random
freeform games with take-backs and random Falklands games, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import random

import lz4.frame
import pytest

from bench.games import play_to_events
from bench.sources import SOURCES
from domain import game as game_module
from domain import storable
from domain.errors import WarlogError
from projections import folds
from projections import store as store_module
from projections.runner import NAMES, Projections
from projections.store import dump_text, split_view
from tests.conftest import new_freeform_game

ROLL = {"kind": "roll", "dice": "2d6", "purpose": "fire", "target": {"compare": ">=", "value": 7}}


def text(value) -> str:
    """A view as the store writes it."""
    return dump_text(value)


def legacy(value) -> str:
    """A view as earlier versions wrote it (the standard library's JSON, uncompressed)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def play_freeform(app, gid, orders, seed):
    """Orders of every kind, and take-backs asked for, accepted and declined."""
    rnd = random.Random(seed)
    for i in range(orders):
        seat = rnd.choice(["Blue", "Red"])
        order = rnd.choice([ROLL, {"kind": "roll", "dice": "d66", "purpose": "event"},
                            {"kind": "vp", "side": seat, "delta": rnd.choice([-1, 2, 3]), "reason": "r"},
                            {"kind": "advance"}, {"kind": "note", "text": f"n{i}", "private": rnd.random() < .5}])
        try:
            app.submit_order(gid, seat, f"{seed}-{i}", order)
            if rnd.random() < 0.25:
                app.request_take_back(gid, seat)
                app.answer_take_back(gid, "Red" if seat == "Blue" else "Blue", rnd.random() < 0.7)
        except WarlogError:
            pass  # nothing to take back, or the game has ended


def make_games(app, seed):
    """Two freeform games with take-backs (one ended) and a Falklands game, interleaved in the log."""
    rnd = random.Random(seed)
    games = [new_freeform_game(app), new_freeform_game(app)]
    for n in range(3):
        for k, gid in enumerate(games):
            play_freeform(app, gid, rnd.randint(4, 12), seed * 100 + n * 10 + k)
    try:
        app.concede(games[1], "Red")
    except (AttributeError, WarlogError):
        pass
    games.append(play_to_events(app, SOURCES["falklands"](), rnd, 150, finish=False))
    return games


def per_line(lines, every):
    """The views by the plain folds, and the map view after every ``every``-th seq."""
    views = {name: folds.fold(name, lines) for name in NAMES}
    marks, view = {}, folds.map_empty()
    for line in lines:
        view = folds.map_apply(view, line)
        if view["version"] % every == 0:
            marks[view["version"]] = view
    return views, marks


@pytest.fixture
def games(app):
    return make_games(app, seed=3)


def test_lines_at_or_below_a_view_change_nothing(app, games):
    for gid in games:
        lines = app.lines(gid)
        views = {name: folds.fold(name, lines) for name in NAMES}
        assert all(folds.fold(name, lines, views[name]) is views[name] for name in NAMES)


@pytest.mark.parametrize("every,chunk", [(4, 7), (100, store_module.CHUNK)])
def test_catch_up_writes_what_the_per_line_folds_give(app, games, every, chunk, monkeypatch):
    """Random batches cutting through games, read-your-writes catch-ups of some views between
    them, then the stored bodies, chunks, checkpoints and index rows against the per-line
    folds (with chunks of 7 seqs every game here is longer than a chunk, so its history, dice
    and VP views are stored split)."""
    monkeypatch.setattr(store_module, "CHUNK", chunk)
    projections = Projections(app, every=every)
    rnd = random.Random(every)
    while projections.run_batch(limit=rnd.randint(1, 60)):
        if rnd.random() < 0.3:
            projections.current(rnd.choice(games), rnd.sample(NAMES, rnd.randint(1, len(NAMES))))
    assert projections.position() == projections.head()
    check_stored(app, projections, games, every)
    # a rebuild of one game (the export-line path) writes the same
    projections.rebuild(games[0])
    check_stored(app, projections, games, every)


def body_text(store, body) -> str:
    """A body as the projector writes it: on SQLite an LZ4 frame (its magic number first) of the
    JSON text, on PostgreSQL the text."""
    if store.kind != "sqlite":
        assert type(body) is str
        return body
    assert type(body) is bytes and body[:4] == b"\x04\x22\x4d\x18", body[:20]
    return lz4.frame.decompress(body).decode("utf-8")


def stored_bodies(store, gid) -> dict:
    """{projection: body} of a game's views, as stored, and {(projection, chunk): (version, body)}
    of its chunks."""
    with store._db.transaction(commit=False) as c:
        c.execute(store.sql("SELECT projection, body FROM {t}warlog_projection_views WHERE game_id = ?"), (gid,))
        views = {r["projection"]: r["body"] for r in c.fetchall()}
        c.execute(store.sql("SELECT projection, chunk, version, body FROM {t}warlog_projection_chunks "
                            "WHERE game_id = ?"), (gid,))
        chunks = {(r["projection"], int(r["chunk"])): (int(r["version"]), r["body"]) for r in c.fetchall()}
    return views, chunks


def stored_form(expected: dict) -> tuple[dict, dict]:
    """The per-line views as the store keeps them: the text of each view's row (a split view's
    head, when it has ``CHUNK`` seqs or more) and of each chunk, by (projection, chunk)."""
    views, chunks = {}, {}
    for name, view in expected.items():
        if name in store_module.SPLIT and view["version"] >= store_module.CHUNK:
            view, parts = split_view(name, view)
            chunks.update({(name, k): text(body) for k, _, body in parts})
        views[name] = text(view)
    return views, chunks


def chunk_texts(store, chunks: dict, heads: dict) -> dict:
    """{(projection, chunk): body text} of stored chunks, each checked to be written at a version
    of its view at or after its last item and at or before the view's head."""
    out = {}
    for (name, k), (version, body) in chunks.items():
        value = json.loads(body_text(store, body))
        items = value[store_module.SPLIT[name].items]
        assert items[-1]["seq"] <= version <= json.loads(heads[name])["version"], (name, k)
        out[name, k] = body_text(store, body)
    return out


def check_stored(app, projections, games, every):
    store = projections.store
    for gid in games:
        lines = app.lines(gid)
        expected, expected_marks = per_line(lines, every)
        views, chunks = stored_bodies(store, gid)
        bodies = {name: body_text(store, body) for name, body in views.items()}
        chunk_bodies = chunk_texts(store, chunks, bodies)
        with store._db.transaction(commit=False) as c:
            c.execute(store.sql("SELECT version, body FROM {t}warlog_projection_checkpoints WHERE game_id = ?"),
                      (gid,))
            checkpoints = {int(r["version"]): body_text(store, r["body"]) for r in c.fetchall()}
        assert (bodies, chunk_bodies) == stored_form(expected), gid
        assert store.load([gid], NAMES)[gid] == expected, gid
        assert checkpoints == {seq: text(view) for seq, view in expected_marks.items()}, gid
        row = folds.index_row(expected["map"])
        [stored] = store.query_index([gid])
        assert stored["version"] == row["version"] and stored["status"] == row["status"]
        assert json.loads(stored["ended"]) == row["ended"]
        assert {k: stored[k] for k in ("ruleset", "scenario", "chain_head", "last_activity", "next_due")} == \
            {k: row[k] for k in ("ruleset", "scenario", "chain_head", "last_activity", "next_due")}
        for seat in row["seats"]:
            assert store.query_index([gid], player=seat["handle"]) if seat["handle"] else True
            on_move = store.query_index([gid], turn_of=seat["handle"]) if seat["handle"] else []
            assert bool(on_move) == (seat["to_move"] and seat["handle"] is not None)


@pytest.mark.parametrize("odd", [{"nan": [float("nan"), float("-inf")]}, {"inf": float("inf")},
                                 {"deep": [{"x": [1.5, float("nan")]}]}])
def test_a_legacy_non_finite_number_is_stored_as_strict_json(app, odd, monkeypatch):
    """A NaN or an infinity in an order (as a log stored before the aggregate refused them,
    domain/storable.py, holds them): the projector goes on, and writes strict JSON (null there),
    as every other path that stores views does."""
    monkeypatch.setattr(game_module, "FORMAT", 1)  # such logs are format 1: RFC 8785 has no NaN at all
    gid, other = new_freeform_game(app), new_freeform_game(app)
    monkeypatch.setattr(storable, "problem", lambda value, where="value": None)
    app.submit_order(gid, "Blue", "a", {"kind": "note", "text": "x", "fields": odd})
    for n in range(3):  # later batches go on from views that hold it
        app.submit_order(gid, "Blue", f"c{n}", ROLL)
        app.submit_order(other, "Blue", f"c{n}", ROLL)
    projections = Projections(app, every=2)
    projections.catch_up(limit=2)

    def strict(value):
        return json.loads(text(value))

    def stored_strictly(store, g):
        """Every body of the game's views and checkpoints parses as strict JSON."""
        views, chunks = stored_bodies(store, g)
        with store._db.transaction(commit=False) as c:
            c.execute(store.sql("SELECT body FROM {t}warlog_projection_checkpoints WHERE game_id = ?"), (g,))
            bodies = [*views.values(), *(body for _, body in chunks.values()), *(r["body"] for r in c.fetchall())]
        for body in bodies:
            json.loads(body_text(store, body), parse_constant=lambda c: pytest.fail(f"{c} stored"))

    for g in (gid, other):
        expected, marks = per_line(app.lines(g), 2)
        stored_strictly(projections.store, g)
        assert {n: strict(v) for n, v in projections.store.load([g], NAMES)[g].items()} == \
            {n: strict(v) for n, v in expected.items()}
        assert {s: strict(v) for s, v in projections.store.checkpoints(g).items()} == \
            {s: strict(v) for s, v in marks.items()}
    app.submit_order(gid, "Red", "d", ROLL)  # read-your-writes onto stored views that hold it
    views = projections.current(gid)
    assert {n: strict(v) for n, v in views.items()} == \
        {n: strict(v) for n, v in per_line(app.lines(gid), 2)[0].items()}
    stored_strictly(projections.store, gid)
    projections.rebuild(gid)
    stored_strictly(projections.store, gid)
    assert {n: strict(v) for n, v in projections.store.load([gid], NAMES)[gid].items()} == \
        {n: strict(v) for n, v in views.items()}


def test_a_row_that_does_not_decode_stops_only_its_games_views(app, store_config):
    from tests.integration.rawstore import RawStore

    good, bad, hashless = new_freeform_game(app), new_freeform_game(app), new_freeform_game(app)
    for gid in (good, bad, hashless):
        play_freeform(app, gid, 5, seed=len(gid))
    with RawStore(store_config) as raw:
        raw.set_state(bad, 4, b"{not json")
        version, topic, state = raw.events(hashless)[3]
        body = json.loads(state)
        del body["hash"]  # decodes, but is no export line
        raw.set_state(hashless, 4, json.dumps(body).encode())
    projections = Projections(app, every=2)
    projections.catch_up(limit=7)
    assert projections.position() == projections.head()
    views = projections.store.load([good, bad, hashless], NAMES)
    lines = app.lines(good)
    assert views[good] == {name: folds.fold(name, lines) for name in NAMES}
    for gid in (bad, hashless):
        assert {view["version"] for view in views[gid].values()} <= {0, 1, 2, 3}
        assert max(projections.store.checkpoints(gid), default=0) <= 3


def test_views_ahead_of_the_projector_and_a_rebuild_on_the_same_object(app):
    """A read-your-writes catch-up wrote a game's views (and checkpoints) before the projector
    reached the game: the projector, which folds onto the stored views and skips the lines they
    hold, leaves the same rows; so does a rebuild by the same object after that (drop, then the
    catch-up from the start)."""
    every = 3
    ahead, behind = new_freeform_game(app), new_freeform_game(app)
    play_freeform(app, ahead, 8, seed=1)
    play_freeform(app, behind, 8, seed=2)
    projections = Projections(app, every=every)
    projections.current(ahead)  # the whole game, checkpoints too
    play_freeform(app, ahead, 4, seed=3)
    projections.catch_up(limit=5)
    check_stored(app, projections, [ahead, behind], every)
    projections.rebuild()
    check_stored(app, projections, [ahead, behind], every)
    play_freeform(app, behind, 4, seed=4)
    projections.catch_up(limit=4)
    check_stored(app, projections, [ahead, behind], every)


def test_postgresql_bodies_are_compressed_with_lz4(app):
    store = Projections(app).store
    if store.kind == "sqlite":
        pytest.skip("PostgreSQL only")
    with store._db.transaction(commit=False) as c:
        c.execute("SELECT 'lz4' = ANY(enumvals) AS has FROM pg_settings WHERE name = 'default_toast_compression'")
        if not c.fetchone()["has"]:
            pytest.skip("this server has no lz4")
        for table in ("warlog_projection_views", "warlog_projection_checkpoints", "warlog_projection_chunks"):
            c.execute("SELECT attcompression FROM pg_attribute WHERE attrelid = %s::regclass AND attname = 'body'",
                      (f"{store._prefix}{table}",))
            assert c.fetchone()["attcompression"] == "l", table
    store.create_tables()  # again: nothing to change


def test_bodies_written_as_text_before_they_were_compressed_still_read(app):
    """On SQLite views and checkpoints are written as LZ4 frames (check_stored); a body an earlier
    version wrote as JSON text still reads, and the view goes on from it. (On PostgreSQL every
    body is text.)"""
    gid = new_freeform_game(app)
    app.submit_order(gid, "Blue", "a", ROLL)
    projections = Projections(app, every=2)
    projections.catch_up()
    store = projections.store
    views, marks = store.load([gid], NAMES)[gid], store.checkpoints(gid)
    assert views and marks
    with store.transaction() as c:  # as an earlier version wrote them
        for name, view in views.items():
            c.execute(store.sql("UPDATE {t}warlog_projection_views SET body = ? WHERE projection = ? AND game_id = ?"),
                      (legacy(view), name, gid))
        for seq, view in marks.items():
            c.execute(store.sql("UPDATE {t}warlog_projection_checkpoints SET body = ? WHERE game_id = ? AND version = ?"),
                      (legacy(view), gid, seq))
    assert stored_bodies(store, gid)[0] == {name: legacy(view) for name, view in views.items()}
    assert store.load([gid], NAMES)[gid] == views
    assert store.checkpoints(gid) == marks
    assert store.checkpoint(gid, max(marks)) == marks[max(marks)]
    app.submit_order(gid, "Red", "b", ROLL)  # the views go on from them, written as frames again
    projections.catch_up()
    expected, expected_marks = per_line(app.lines(gid), 2)
    views, chunks = stored_bodies(store, gid)
    heads = {name: body_text(store, body) for name, body in views.items()}
    assert (heads, chunk_texts(store, chunks, heads)) == stored_form(expected)
    assert store.checkpoints(gid) == expected_marks  # the text ones and the new frames


def test_read_model_commits_do_not_wait_for_the_disk_and_the_event_logs_still_do(app):
    """ProjectionStore.transaction relaxes durability for its own transaction only (the rows are
    derived and written with their tracked position): SQLite's synchronous=NORMAL, PostgreSQL's
    synchronous_commit off; the event store's writes on the same pooled connections keep theirs."""
    store = Projections(app).store
    sqlite = store.kind == "sqlite"
    ask = "PRAGMA synchronous" if sqlite else "SHOW synchronous_commit"

    def setting(c):
        c.execute(ask)
        row = c.fetchone()
        return row[0] if sqlite else row["synchronous_commit"]

    with app.recorder.datastore.transaction(commit=True) as c:
        usual = setting(c)
    assert usual == (2 if sqlite else "on")  # FULL: what the event log is written with
    for _ in range(3):
        with store.transaction() as c:
            assert setting(c) == (1 if sqlite else "off")  # NORMAL
        with app.recorder.datastore.transaction(commit=True) as c:
            assert setting(c) == usual
    with pytest.raises(RuntimeError):  # put back after a failed transaction too
        with store.transaction() as c:
            raise RuntimeError("power cut")
    with app.recorder.datastore.transaction(commit=True) as c:
        assert setting(c) == usual
    gid = new_freeform_game(app)  # and the game and its views are written as before
    app.submit_order(gid, "Blue", "a", ROLL)
    Projections(app).catch_up()
    assert Projections(app).store.load([gid], NAMES)[gid]["map"]["version"] == app.get_game(gid).version
