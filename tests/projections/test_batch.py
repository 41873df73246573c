"""The projector's batch path (``folds.fold_steps``, ``store.dumps``, ``ProjectionStore.write_many``)
against the plain per-line folds (``apply(view, line)``): on random freeform games with take-backs and
random Falklands games, stored on SQLite and PostgreSQL, the views, the map checkpoints and the games
index are the same values, and the view bodies the same text as ``json.dumps`` of the per-line views."""

from __future__ import annotations

import copy
import json
import math
import random
from datetime import datetime, timezone
from uuid import UUID

import lz4.frame
import pytest

from bench.games import play_to_events
from bench.sources import SOURCES
from domain import storable
from domain.errors import WarlogError
from projections import folds
from projections import store as store_module
from projections.runner import NAMES, Projections
from projections.store import dump_body, dumps, is_plain, load_body, loads, split_view
from tests.conftest import new_freeform_game

ROLL = {"kind": "roll", "dice": "2d6", "purpose": "fire", "target": {"compare": ">=", "value": 7}}


def text(value) -> str:
    """A view as the store wrote it before the batch path (json.dumps)."""
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


def events_of(app, gid):
    return list(app.events.get(UUID(gid)))


@pytest.fixture
def games(app):
    return make_games(app, seed=3)


def test_fold_steps_equals_the_per_line_folds_from_any_start(app, games):
    every = 7
    rnd = random.Random(11)
    for gid in games:
        lines, events = app.lines(gid), events_of(app, gid)
        assert [folds.step_of_event(e)[:4] for e in events] == [folds.step_of_line(li)[:4] for li in lines]
        expected, expected_marks = per_line(lines, every)
        for _ in range(6):
            # each view already folded to its own seq (a read-your-writes catch-up moves only some)
            starts = {name: rnd.randint(0, len(lines)) for name in NAMES}
            given = {name: folds.fold(name, lines[:k]) for name, k in starts.items()}
            kept = copy.deepcopy(given)
            low = min(starts.values())
            # the steps from the lowest view on, some from events and some from export lines
            steps = [folds.step_of_event(e) if rnd.random() < 0.7 else folds.step_of_line(li)
                     for e, li in zip(events[low:], lines[low:])]
            marks: list[dict] = []
            out = folds.fold_steps(given, steps, NAMES, every=every, marks=marks)
            assert given == kept  # the views handed in are not changed
            for name in NAMES:
                assert out[name] == expected[name], (gid, name, starts)
                assert dumps(out[name]) == text(expected[name])
            assert {m["version"]: m for m in marks} == {s: v for s, v in expected_marks.items() if s > starts["map"]}
            assert [m["version"] for m in marks] == sorted(s for s in expected_marks if s > starts["map"])
            # folding more onto the views handed out leaves them (and the checkpoints) as they were
            handed, marks_kept = copy.deepcopy(out), copy.deepcopy(marks)
            folds.fold_steps(out, [folds.step_of_event(e) for e in events[len(lines) // 2:]], NAMES)
            assert out == handed and marks == marks_kept


def test_fold_steps_of_lines_at_or_below_a_view_changes_nothing(app, games):
    for gid in games:
        lines, events = app.lines(gid), events_of(app, gid)
        views = {name: folds.fold(name, lines) for name in NAMES}
        again = folds.fold_steps(views, [folds.step_of_event(e) for e in events], NAMES, every=5, marks=[])
        assert all(again[name] is views[name] for name in NAMES)


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
        assert {k: stored[k] for k in ("ruleset", "scenario", "chain_head", "last_activity")} == \
            {k: row[k] for k in ("ruleset", "scenario", "chain_head", "last_activity")}
        for seat in row["seats"]:
            assert store.query_index([gid], player=seat["handle"]) if seat["handle"] else True
            on_move = store.query_index([gid], turn_of=seat["handle"]) if seat["handle"] else []
            assert bool(on_move) == (seat["to_move"] and seat["handle"] is not None)


@pytest.mark.parametrize("fast", [True, False], ids=["fast decoder", "every step looked at"])
@pytest.mark.parametrize("odd", [{"nan": [float("nan"), float("-inf")]}, {"inf": float("inf")}, {"big": 2**70},
                                 {"deep": [{"x": [1.5, float("nan")]}]},
                                 {"below_i64": -(2**63) - 1}])  # orjson would read this int as a float
def test_values_orjson_would_write_otherwise_are_written_by_json(app, odd, fast, monkeypatch):
    """A NaN, an infinity or an int past 64 bits in an order (a note keeps any extra key): the
    stored views are still json.dumps of the per-line views, on every path that writes them,
    whether the projector decodes with its fast decoder or looks at every step."""
    if not fast:
        monkeypatch.setattr(Projections, "_fast_decoder", lambda self: None)
    gid, other = new_freeform_game(app), new_freeform_game(app)
    # As a log stored before the aggregate refused such values (domain/storable.py) holds them.
    monkeypatch.setattr(storable, "problem", lambda value, where="value": None)
    app.submit_order(gid, "Blue", "a", {"kind": "note", "text": "x", **odd})
    for n in range(3):  # later batches go on from views that hold it
        app.submit_order(gid, "Blue", f"c{n}", ROLL)
        app.submit_order(other, "Blue", f"c{n}", ROLL)
    projections = Projections(app, every=2)
    projections.catch_up(limit=2)
    for g in (gid, other):
        stored = projections.store.load([g], NAMES)[g]
        expected, marks = per_line(app.lines(g), 2)
        assert {n: text(v) for n, v in stored.items()} == {n: text(v) for n, v in expected.items()}
        assert {s: text(v) for s, v in projections.store.checkpoints(g).items()} == \
            {s: text(v) for s, v in marks.items()}
    app.submit_order(gid, "Red", "d", ROLL)  # read-your-writes onto stored views that hold it
    views = projections.current(gid)
    assert {n: text(v) for n, v in views.items()} == {n: text(v) for n, v in per_line(app.lines(gid), 2)[0].items()}
    assert {n: text(v) for n, v in projections.store.load([gid], NAMES)[gid].items()} == \
        {n: text(v) for n, v in views.items()}
    app.submit_order(gid, "Red", "e", ROLL)  # the projector onto stored views that hold it
    projections.catch_up()
    expected = per_line(app.lines(gid), 2)[0]
    assert {n: text(v) for n, v in projections.store.load([gid], NAMES)[gid].items()} == \
        {n: text(v) for n, v in expected.items()}
    projections.rebuild(gid)
    assert {n: text(v) for n, v in projections.store.load([gid], NAMES)[gid].items()} == \
        {n: text(v) for n, v in expected.items()}


def test_dumps_is_json_dumps():
    values = [
        {"a": [1, 2.5, -0.0, 1e16, 1e-7, True, None, "é\u2028\x00\"\\"], "b": {"c": 2**63 - 1}},
        [float("nan")], {"x": float("inf")}, [2**64], {1: "int key"}, {"t": (1, 2)}, ["\ud800"],
    ]
    for value in values:
        out = dumps(value)
        assert json.loads(out) == json.loads(text(value)) or text(value) == out
        assert loads(out) == json.loads(text(value)) or out == text(value)
        if "\ud800" in value:  # no UTF-8 for it: the database would refuse the text alike
            with pytest.raises(UnicodeEncodeError):
                dump_body(value)
            continue
        assert lz4.frame.decompress(dump_body(value)).decode() == out
        assert text(load_body(dump_body(value))) == text(loads(out))
    assert dumps([float("nan"), float("-inf")]) == "[NaN,-Infinity]"
    assert dumps({"x": float("inf")}) == '{"x":Infinity}'
    assert dumps([2**70]) == f"[{2**70}]"
    assert dumps({1: 2}) == '{"1":2}'
    with pytest.raises(TypeError):  # as json.dumps: not JSON (orjson would write it)
        dumps({"when": datetime(2026, 1, 1, tzinfo=timezone.utc)})
    with pytest.raises(TypeError):
        dumps([UUID(int=1)])
    assert not is_plain([1, [2, {"a": math.nan}]]) and not is_plain((1,)) and is_plain({"a": [1.5, None, "s"]})
    odd: set = set()
    assert loads('{"a":1e999}', odd, "g") == {"a": math.inf} and odd == {"g"}
    assert math.isnan(loads("[NaN]", odd, "h")[0]) and odd == {"g", "h"}
    assert loads('{"a":1.5}', odd, "i") == {"a": 1.5} and "i" not in odd


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
    reached the game: the projector, which folds a game from empty views when its batch starts at
    seq 1 and from its own last batch's views when it goes on, leaves the same rows; so does a
    rebuild by the same object after that (drop, then the catch-up from the start)."""
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
                      (text(view), name, gid))
        for seq, view in marks.items():
            c.execute(store.sql("UPDATE {t}warlog_projection_checkpoints SET body = ? WHERE game_id = ? AND version = ?"),
                      (text(view), gid, seq))
    assert stored_bodies(store, gid)[0] == {name: text(view) for name, view in views.items()}
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


@pytest.mark.parametrize("fast", [True, False], ids=["fast decoder", "every step looked at"])
def test_a_value_json_dumps_refuses_is_refused_as_before(app, store_config, fast, monkeypatch):
    """A stored event whose data holds a value some transcoding made (a row changed outside
    warlog, or a ruleset that put a datetime in an event): json.dumps refused it in a view, and so
    does the projector still (orjson would have written it)."""
    from tests.integration.rawstore import RawStore

    if not fast:
        monkeypatch.setattr(Projections, "_fast_decoder", lambda self: None)
    gid = new_freeform_game(app)
    app.submit_order(gid, "Blue", "a", {"kind": "note", "text": "x"})
    with RawStore(store_config) as raw:
        version, topic, state = raw.events(gid)[-1]
        body = json.loads(state)
        body["order"]["when"] = {"_type_": "datetime_iso", "_data_": "2026-01-01T00:00:00+00:00"}
        raw.set_state(gid, version, json.dumps(body).encode())
    with pytest.raises(TypeError):
        text(folds.fold("history", app.lines(gid)))
    with pytest.raises(TypeError):
        Projections(app).catch_up()


def test_the_fast_decoder_gives_what_the_mapper_gives_and_declines_the_unusual_rows(app):
    """``runner._decode_usual`` on the rows of games with every kind of order: the same event
    class and fields as ``Mapper.to_domain_event``; on rows that are not plain JSON, or not the
    usual event, it answers None (the projector then uses the mapper)."""
    from eventsourcing.persistence import StoredEvent

    from projections.runner import _decode_usual

    # eventsourcing's JSON transcoder keeps the fast path
    assert Projections(app)._fast_decoder() is _decode_usual
    gids = [new_freeform_game(app) for _ in range(3)]
    for n, gid in enumerate(gids):
        play_freeform(app, gid, 25, seed=n)
    rows = app.recorder.select_notifications(1, 10_000)
    assert len(rows) > 75
    for row in rows:
        fast, usual = _decode_usual(row), app.mapper.to_domain_event(row)
        assert type(fast) is type(usual) and fast.__dict__ == usual.__dict__, row.originator_version
        assert type(fast.timestamp) is datetime and type(fast.originator_id) is UUID

    row = rows[-1]
    body = json.loads(row.state)

    def declined(changed: dict | bytes, topic: str = row.topic) -> bool:
        state = changed if isinstance(changed, bytes) else json.dumps(changed).encode()
        return _decode_usual(StoredEvent(row.originator_id, row.originator_version, topic, state)) is None

    assert not declined(body)  # the row as stored is usual
    for big in (-(2**63) - 1, 2**64 + 1, 12345678901234567890123):  # orjson reads some as floats
        assert declined({**body, "x": big}) and declined({**body, "x": [1, big]})
        assert declined(json.dumps({**body, "x": big}, indent=1).encode())
    assert not declined({**body, "x": 0.12345678901234567891, "y": -(2**55), "z": "1" * 30})
    assert _decode_usual(StoredEvent(row.originator_id, row.originator_version, row.topic, json.dumps(
        {**body, "x": 0.12345678901234567891, "y": -(2**55)}).encode())).__dict__ == app.mapper.to_domain_event(
        StoredEvent(row.originator_id, row.originator_version, row.topic, json.dumps(
            {**body, "x": 0.12345678901234567891, "y": -(2**55)}).encode())).__dict__
    assert declined(json.dumps({**body, "x": float("nan")}).encode())
    assert declined(json.dumps({**body, "x": float("inf")}).encode())
    assert declined({**body, "x": {"_type_": "datetime_iso", "_data_": "2026-01-01T00:00:00+00:00"}})
    assert declined({**body, "timestamp": "2026-01-01T00:00:00+00:00"})  # not transcoded
    assert declined({**body, "class_version": 2})
    assert declined(row.state[:-1])  # not JSON: the mapper says so (a damaged row)
    assert declined(row.state.replace(b'"_type_"', b'"_kind_"'))


def test_the_projectors_reader_gives_the_recorders_notifications(app):
    """``storage.NotificationReader`` (what the projector reads with) against the recorder's
    ``select_notifications``: the same rows, values and types, from any start, any limit."""
    from domain.storage import NotificationReader

    gids = [new_freeform_game(app) for _ in range(3)]
    for n, gid in enumerate(gids):
        play_freeform(app, gid, 12, seed=10 + n)
    read = NotificationReader(app.recorder, app.config.kind)
    head = app.recorder.max_notification_id()
    fields = ("id", "originator_id", "originator_version", "topic", "state")
    for start, limit in [(1, 10_000), (1, 7), (head - 3, 10), (head, 1), (head + 1, 5), (5, 0)]:
        got, expected = read(start, limit), app.recorder.select_notifications(start, limit)
        assert [[getattr(n, f) for f in fields] for n in got] == [[getattr(n, f) for f in fields] for n in expected]
        assert all(type(n.originator_id) is type(e.originator_id) for n, e in zip(got, expected))
    assert len(read(1, 10_000)) == head > 30


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
