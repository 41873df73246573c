"""The history view kept as a head and chunks of ``CHUNK`` seqs (``store.split_view``,
``join_view``, ``open_chunk``), on SQLite and PostgreSQL: a batch writes only the chunks its new
seqs fall in, a whole view read back is the per-line fold, and views written whole by an earlier
version are split by ``create_tables`` or, when met before that, written whole again."""

from __future__ import annotations

import random

import pytest

from projections import folds
from projections import store as store_module
from projections.runner import NAMES, Projections
from projections.store import join_view, open_chunk, split_view
from tests.conftest import new_freeform_game
from tests.projections.test_batch import ROLL, make_games, per_line, play_freeform, text


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(store_module, "CHUNK", 5)
    return 5


def test_split_and_join_give_the_view_back_from_any_chunk_size(app, monkeypatch):
    games = make_games(app, seed=5)
    for gid in games:
        view = folds.fold("history", app.lines(gid))
        for chunk in (1, 2, 5, 7, 200):
            monkeypatch.setattr(store_module, "CHUNK", chunk)
            head, parts = split_view("history", view)
            assert "items" not in head and "ops" not in head
            assert [k for k, _, _ in parts] == list(range(len(parts)))
            assert [version for _, version, _ in parts] == [body["items"][-1]["seq"] for _, _, body in parts]
            assert all(len(body["items"]) == chunk for _, _, body in parts[:-1])
            assert text(join_view("history", head, [body for _, _, body in parts])) == text(view)
            # an operation is kept in the chunk of its first seq
            for k, _, body in parts:
                assert all((int(op) - 1) // chunk == k for op in body["ops"])


def test_what_a_projector_keeps_folds_to_the_same_chunks_as_the_whole_view(app, monkeypatch):
    """open_chunk of the view at seq k, the seqs after k folded onto it, split after k: the
    same chunks as the whole view's from the one seq k+1 falls in."""
    gid = make_games(app, seed=6)[0]
    lines = app.lines(gid)
    whole = folds.fold("history", lines)
    for chunk in (1, 3, 5, 200):
        monkeypatch.setattr(store_module, "CHUNK", chunk)
        _, parts = split_view("history", whole)
        for k in range(1, len(lines)):
            kept = open_chunk("history", folds.fold("history", lines[:k]))
            assert all(it["seq"] > (k // chunk) * chunk for it in kept["items"])
            assert len(kept["items"]) == k % chunk
            folded = folds.fold("history", lines[k:], kept)
            head, written = split_view("history", folded, since=k)
            assert head == split_view("history", whole)[0]
            assert written == [p for p in parts if p[0] >= k // chunk], (chunk, k)


def test_a_chunk_is_never_written_from_part_of_its_items(app, small_chunks):
    gid = make_games(app, seed=7)[0]
    view = folds.fold("history", app.lines(gid))
    short = {**view, "items": view["items"][2:]}  # seqs 3..: chunk 0 without seqs 1 and 2
    with pytest.raises(ValueError, match="chunk 0 "):
        split_view("history", short)
    split_view("history", short, since=small_chunks)  # from chunk 1 on, every item is there
    later = {**view, "items": view["items"][small_chunks:]}  # chunks 1.. whole, chunk 0 left out
    with pytest.raises(ValueError, match="chunk 0 "):
        split_view("history", later, since=small_chunks - 1)  # seq 5 is new: chunk 0 must be written


def chunk_rows(store, gid) -> dict[int, tuple[int, bytes]]:
    with store._db.transaction(commit=False) as c:
        c.execute(store.sql("SELECT chunk, version, body FROM {t}warlog_projection_chunks "
                            "WHERE projection = 'history' AND game_id = ?"), (gid,))
        return {int(r["chunk"]): (int(r["version"]), r["body"]) for r in c.fetchall()}


def mark_chunks(store, gid, below: int) -> None:
    """Chunks below ``below`` made to look older than they are (version 0, their bodies kept): a
    write of one of them would pass its guard and put its version back."""
    with store.transaction() as c:
        c.execute(store.sql("UPDATE {t}warlog_projection_chunks SET version = 0 "
                            "WHERE projection = 'history' AND game_id = ? AND chunk < ?"), (gid, below))


def test_a_batch_writes_only_the_chunks_its_new_seqs_fall_in(app, small_chunks):
    gid = new_freeform_game(app)
    for n in range(8):
        app.submit_order(gid, "Blue", f"a{n}", ROLL)
    projections = Projections(app)
    projections.catch_up()
    for fresh in (False, True):  # from the views carried from the last batch, and from the store
        version = app.get_game(gid).version
        untouched = version // small_chunks  # the chunks wholly at or below the stored version
        assert untouched >= 3
        mark_chunks(projections.store, gid, untouched)
        app.submit_order(gid, "Red", f"b{fresh}", ROLL)
        if fresh:
            projections = Projections(app)
        projections.catch_up()
        kept = projections._carried.views[gid]["history"]  # held for the next batch: the open chunk only
        assert [it["seq"] for it in kept["items"]] == \
            list(range(kept["version"] // small_chunks * small_chunks + 1, kept["version"] + 1))
        rows = chunk_rows(projections.store, gid)
        assert [rows[k][0] for k in range(untouched)] == [0] * untouched
        assert max(rows) == (app.get_game(gid).version - 1) // small_chunks
        assert rows[untouched][0] == min(app.get_game(gid).version, (untouched + 1) * small_chunks)
        projections.rebuild(gid)  # every chunk written again, and the whole history read back
        assert all(version > 0 for version, _ in chunk_rows(projections.store, gid).values())
        assert projections.store.load([gid], ["history"])[gid]["history"] == \
            folds.fold("history", app.lines(gid))


def test_read_your_writes_and_rebuild_write_the_same_chunks(app, small_chunks):
    games = make_games(app, seed=8)
    projections = Projections(app)
    projections.catch_up()
    rnd = random.Random(8)
    for gid in games[:2]:
        kept = chunk_rows(projections.store, gid)
        untouched = app.get_game(gid).version // small_chunks
        mark_chunks(projections.store, gid, untouched)
        play_freeform(app, gid, 6, rnd.randint(0, 99))
        views = projections.current(gid, ["history"])  # read-your-writes: folded from the whole view
        assert views["history"] == folds.fold("history", app.lines(gid))
        rows = chunk_rows(projections.store, gid)
        assert [rows[k][0] for k in range(untouched)] == [0] * untouched  # not written again
        assert {k: rows[k] for k in kept if k >= untouched} != {k: kept[k] for k in kept if k >= untouched} \
            or app.get_game(gid).version == max(v for v, _ in kept.values())
        kept = chunk_rows(projections.store, gid)
        projections.rebuild(gid)
        rows = chunk_rows(projections.store, gid)
        assert {k: rows[k] for k in range(untouched, max(kept) + 1)} == {k: kept[k] for k in range(untouched, max(kept) + 1)}
        assert projections.store.load([gid], ["history"])[gid] == views


def write_whole(store, gid: str, view: dict) -> None:
    """The history view as a version before chunks wrote it: the whole view in its row, no chunk."""
    with store.transaction() as c:
        c.execute(store.sql("DELETE FROM {t}warlog_projection_chunks WHERE game_id = ?"), (gid,))
        c.execute(store.sql("UPDATE {t}warlog_projection_views SET body = ? WHERE projection = 'history' "
                            "AND game_id = ?"), (text(view), gid))


def test_views_written_whole_are_split_by_migrate(app, small_chunks):
    games = make_games(app, seed=9)
    projections = Projections(app)
    projections.catch_up()
    store = projections.store
    expected = {gid: per_line(app.lines(gid), 100)[0] for gid in games}
    kept = {gid: chunk_rows(store, gid) for gid in games}
    for gid in games:
        write_whole(store, gid, expected[gid]["history"])
        assert store.load([gid], NAMES)[gid] == expected[gid]  # read as it is
    store.create_tables()
    for gid in games:
        assert chunk_rows(store, gid).keys() == kept[gid].keys()
        assert store.load([gid], NAMES)[gid] == expected[gid]
        with store._db.transaction(commit=False) as c:
            c.execute(store.sql("SELECT body FROM {t}warlog_projection_views WHERE projection = 'history' "
                                "AND game_id = ?"), (gid,))
            assert "items" not in store_module.load_body(c.fetchone()["body"])
    store.create_tables()  # again: nothing left to split


@pytest.mark.parametrize("path", ["projector", "read-your-writes"])
def test_a_view_written_whole_and_met_before_migrate_is_written_whole_again(app, small_chunks, path):
    """Its new seqs fall in the last chunk, but none of its chunks is stored: all are written."""
    gid = make_games(app, seed=10)[0]
    projections = Projections(app)
    projections.catch_up()
    write_whole(projections.store, gid, folds.fold("history", app.lines(gid)))
    app.submit_order(gid, "Blue", "late", {"kind": "note", "text": "after"})
    if path == "projector":
        Projections(app).catch_up()  # a new process: the view is read from the store
    else:
        projections.current(gid, ["history"])
    version = app.get_game(gid).version
    assert sorted(chunk_rows(projections.store, gid)) == list(range((version - 1) // small_chunks + 1))
    assert projections.store.load([gid], ["history"])[gid]["history"] == folds.fold("history", app.lines(gid))
