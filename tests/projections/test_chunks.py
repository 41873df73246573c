"""The history, dice and VP views kept as a head and chunks of ``CHUNK`` seqs (``store.split_view``,
``join_view``, ``widen``), on SQLite and PostgreSQL: a batch writes only the
chunks its new seqs fall in and those a dice reveal or a take-back changed, a view read back is
the per-line fold, and a view stored whole (shorter than ``CHUNK``, or written by an earlier
version) has all its chunks written at its next write."""

from __future__ import annotations

import bisect
import random
import threading
import time

import pytest

from projections import folds
from projections import store as store_module
from projections.runner import NAMES, Projections
from projections.store import SPLIT, chunk_of, join_view, split_view, widen
from tests.conftest import new_freeform_game
from tests.projections.test_batch import ROLL, make_games, per_line, play_freeform, text


def open_chunk(name: str, view: dict) -> dict:
    """What ``ProjectionStore.load(partial=True)`` reads of a ``SPLIT`` view: its head and the
    items of the chunk the next seq falls in, with what is kept with them."""
    spec = SPLIT[name]
    start = chunk_of(view["version"] + 1) * store_module.CHUNK + 1
    items = view[spec.items]
    if not items or items[0]["seq"] >= start:
        return view
    kept = items[bisect.bisect_left(items, start, key=lambda it: it["seq"]):]
    out = {**view, spec.items: kept}
    if spec.by_seq:
        by_seq = view[spec.by_seq]
        out[spec.by_seq] = {str(it["seq"]): by_seq[str(it["seq"])] for it in kept if str(it["seq"]) in by_seq}
    return out


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(store_module, "CHUNK", 5)
    return 5


@pytest.mark.parametrize("name", list(store_module.SPLIT))
def test_split_and_join_give_the_view_back_from_any_chunk_size(app, monkeypatch, name):
    games = make_games(app, seed=5)
    spec = store_module.SPLIT[name]
    for gid in games:
        view = folds.fold(name, app.lines(gid))
        for chunk in (1, 2, 5, 7, 200):
            monkeypatch.setattr(store_module, "CHUNK", chunk)
            head, parts = split_view(name, view)
            assert spec.items not in head and spec.by_seq not in head
            assert [k for k, _, _ in parts] == sorted({(it["seq"] - 1) // chunk for it in view[spec.items]})
            assert {version for _, version, _ in parts} <= {view["version"]}
            for k, _, body in parts:
                assert all((it["seq"] - 1) // chunk == k for it in body[spec.items])
                if spec.by_seq:  # an operation is kept in the chunk of its first seq
                    assert all((int(op) - 1) // chunk == k for op in body[spec.by_seq])
            if spec.dense:
                assert all(len(body[spec.items]) == chunk for _, _, body in parts[:-1])
            assert text(join_view(name, head, [body for _, _, body in parts])) == text(view)


def reaching_back(app) -> str:
    """A freeform game whose later lines change earlier items: VP scored and rolls made, then
    taken back; an epoch of rolls revealed at the end of a turn."""
    gid = new_freeform_game(app)
    for n in range(3):
        app.submit_order(gid, "Blue", f"r{n}", ROLL)
        app.submit_order(gid, "Blue", f"v{n}", {"kind": "vp", "side": "Blue", "delta": 2, "reason": "r"})
        app.request_take_back(gid, "Blue")
        app.answer_take_back(gid, "Red", True)
        app.submit_order(gid, "Red", f"s{n}", {"kind": "vp", "side": "Red", "delta": 1, "reason": "r"})
        app.submit_order(gid, "Red", f"t{n}", ROLL)
        app.request_take_back(gid, "Red")
        app.answer_take_back(gid, "Blue", True)
        app.submit_order(gid, "Blue", f"a{n}", {"kind": "advance"})
    lines = app.lines(gid)
    assert {"VPScored", "DiceRolled", "TakeBackAccepted", "DiceEpochRevealed"} <= {li["type"] for li in lines}
    return gid


@pytest.mark.parametrize("name", list(store_module.SPLIT))
def test_what_a_projector_keeps_folds_to_the_same_chunks_as_the_whole_view(app, monkeypatch, name):
    """open_chunk of the view at seq k (widened by the stored chunks a reveal or a take-back of
    the seqs after k reaches back to), the seqs after k folded onto it, split after k (or
    before the first item changed): the chunks of the whole view from there, and with the
    chunks stored at k, all of the whole view's."""
    games = make_games(app, seed=6)
    reach_of = folds.REACH.get(name)
    for gid in [*games[:1], *games[2:], reaching_back(app)]:  # random games, and one of every reach
        lines = app.lines(gid)
        whole = folds.fold(name, lines)
        for chunk in (1, 3, 5, 200):
            monkeypatch.setattr(store_module, "CHUNK", chunk)
            head, parts = split_view(name, whole)
            for k in range(1, len(lines), 3 if name == "dice" else 1):
                before = folds.fold(name, lines[:k])
                kept = open_chunk(name, before)
                spec = store_module.SPLIT[name]
                assert all(it["seq"] > (k // chunk) * chunk for it in kept[spec.items])
                since = k
                stored = {c: body for c, _, body in split_view(name, before)[1]}
                reach = reach_of(kept, lines[k:]) if reach_of else None
                if reach is not None:
                    since = reach - 1
                    kept = widen(name, kept, [stored[c] for c in sorted(stored) if c < k // chunk])
                folded = folds.fold(name, lines[k:], kept)
                new_head, written = split_view(name, folded, since=since)
                assert new_head == head
                assert written == [p for p in parts if p[0] >= since // chunk], (chunk, k)
                stored.update((c, body) for c, _, body in written)
                assert stored == {c: body for c, _, body in parts}, (chunk, k)


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


def chunk_rows(store, gid, name="history") -> dict[int, tuple[int, bytes]]:
    with store._db.transaction(commit=False) as c:
        c.execute(store.sql("SELECT chunk, version, body FROM {t}warlog_projection_chunks "
                            "WHERE projection = ? AND game_id = ?"), (name, gid))
        return {int(r["chunk"]): (int(r["version"]), r["body"]) for r in c.fetchall()}


def mark_chunks(store, gid, below: int, name="history") -> None:
    """Chunks below ``below`` made to look older than they are (version 0, their bodies kept): a
    write of one of them would pass its guard and put its version back."""
    with store.transaction() as c:
        c.execute(store.sql("UPDATE {t}warlog_projection_chunks SET version = 0 "
                            "WHERE projection = ? AND game_id = ? AND chunk < ?"), (name, gid, below))


def versions(store, gid, name) -> dict[int, int]:
    return {k: version for k, (version, _) in chunk_rows(store, gid, name).items()}


def test_a_batch_writes_only_the_chunks_its_new_seqs_fall_in(app, small_chunks):
    gid = new_freeform_game(app)
    for n in range(8):
        app.submit_order(gid, "Blue", f"a{n}", ROLL)  # no reveal, no take-back: nothing older changes
    projections = Projections(app)
    projections.catch_up()
    for n in range(2):
        version = app.get_game(gid).version
        untouched = version // small_chunks  # the chunks wholly at or below the stored version
        assert untouched >= 3
        for name in SPLIT:
            mark_chunks(projections.store, gid, untouched, name)
        app.submit_order(gid, "Red", f"b{n}", ROLL)
        projections.catch_up()
        now = app.get_game(gid).version
        held = projections.store.load([gid], SPLIT, partial=True)[gid]  # what the next batch folds onto
        for name in SPLIT:
            kept = held[name]  # the open chunk only
            assert all(it["seq"] > now // small_chunks * small_chunks for it in kept[SPLIT[name].items])
            rows = versions(projections.store, gid, name)
            assert {k: v for k, v in rows.items() if k < untouched} == {k: 0 for k in rows if k < untouched}, name
            assert {k: v for k, v in rows.items() if k >= untouched} == \
                {k: now for k in range(untouched, (now - 1) // small_chunks + 1) if k in rows}, name
        assert held["dice"]["rolls"] or now % small_chunks == 0
        projections.rebuild(gid)  # every chunk written again, and the whole views read back
        assert all(v > 0 for name in SPLIT for v in versions(projections.store, gid, name).values())
        assert projections.store.load([gid], NAMES)[gid] == per_line(app.lines(gid), 100)[0]


def test_a_reveal_or_a_take_back_rewrites_the_older_dice_chunks_it_changes(app, small_chunks):
    """A reveal settles every roll of its epoch, a take-back marks its rolls superseded: the
    projector reads those rolls' chunks back and writes them again, and no chunk before them."""
    gid = new_freeform_game(app)
    app.submit_order(gid, "Blue", "x0", {"kind": "advance"})  # Fight
    app.submit_order(gid, "Blue", "x1", {"kind": "advance"})  # turn 2: epoch 1 revealed, epoch 2 opened
    for n in range(6):
        app.submit_order(gid, "Blue", f"a{n}", ROLL)
    projections = Projections(app)
    projections.catch_up()
    epoch = projections.store.load([gid], ["dice"])[gid]["dice"]["epochs"][-1]
    assert epoch["status"] == "open" and epoch["opened_seq"] > small_chunks
    checks = [("take-back", lambda: (app.request_take_back(gid, "Blue"), app.answer_take_back(gid, "Red", True)),
               lambda view: [r["seq"] for r in view["rolls"] if r["superseded"]]),
              ("reveal", lambda: (app.submit_order(gid, "Blue", "y0", {"kind": "advance"}),
                                  app.submit_order(gid, "Blue", "y1", {"kind": "advance"})),
               lambda view: [r["seq"] for r in view["rolls"] if r["status"] == "verified"])]
    for what, act, changed_seqs in checks:
        version = app.get_game(gid).version
        for k in versions(projections.store, gid, "dice"):
            mark_chunks(projections.store, gid, k + 1, "dice")  # every chunk: any the batch writes shows
        act()
        projections.catch_up()
        view = projections.store.load([gid], ["dice"])[gid]["dice"]
        assert view == folds.fold("dice", app.lines(gid)), what
        changed = [s for s in changed_seqs(view) if s <= version]
        assert changed, what
        rows = versions(projections.store, gid, "dice")
        low = (min(changed) - 1) // small_chunks
        assert {k: v for k, v in rows.items() if k < low} == {k: 0 for k in rows if k < low}, what
        assert {k: v for k, v in rows.items() if k >= low} == \
            {k: app.get_game(gid).version for k in rows if k >= low}, what


def test_read_your_writes_and_rebuild_write_the_same_chunks(app, small_chunks):
    games = make_games(app, seed=8)
    projections = Projections(app)
    projections.catch_up()
    rnd = random.Random(8)
    for gid in games[:2]:
        untouched = app.get_game(gid).version // small_chunks
        mark_chunks(projections.store, gid, untouched, "history")
        play_freeform(app, gid, 6, rnd.randint(0, 99))
        views = projections.current(gid, list(SPLIT))  # read-your-writes: folded from the whole views
        assert views == {name: folds.fold(name, app.lines(gid)) for name in SPLIT}
        rows = versions(projections.store, gid, "history")
        assert [rows[k] for k in range(untouched)] == [0] * untouched  # not written again
        kept = {name: chunk_rows(projections.store, gid, name) for name in SPLIT}
        projections.rebuild(gid)
        bodies = {name: {k: body for k, (_, body) in chunk_rows(projections.store, gid, name).items()}
                  for name in SPLIT}
        assert bodies == {name: {k: body for k, (_, body) in kept[name].items()} for name in SPLIT}
        assert projections.store.load([gid], list(SPLIT))[gid] == views


def write_whole(store, gid: str, views: dict) -> None:
    """Split views stored whole: the whole view in its row, no chunk."""
    with store.transaction() as c:
        for name, view in views.items():
            c.execute(store.sql("DELETE FROM {t}warlog_projection_chunks WHERE projection = ? AND game_id = ?"),
                      (name, gid))
            c.execute(store.sql("UPDATE {t}warlog_projection_views SET body = ? WHERE projection = ? "
                                "AND game_id = ?"), (text(view), name, gid))


@pytest.mark.parametrize("path", ["projector", "read-your-writes"])
def test_a_view_stored_whole_is_split_at_its_next_write(app, small_chunks, path):
    """As a version before chunks wrote it (a view shorter than CHUNK is also kept whole): its
    new seqs fall in the last chunk, but none of its chunks is stored, so all are written."""
    gid = make_games(app, seed=10)[0]
    projections = Projections(app)
    projections.catch_up()
    write_whole(projections.store, gid, {name: folds.fold(name, app.lines(gid)) for name in SPLIT})
    app.submit_order(gid, "Blue", "late", ROLL)
    if path == "projector":
        Projections(app).catch_up()  # a new process: the views are read from the store
    else:
        projections.current(gid, list(SPLIT))
    for name in SPLIT:
        view = folds.fold(name, app.lines(gid))
        assert sorted(chunk_rows(projections.store, gid, name)) == \
            sorted({(it["seq"] - 1) // small_chunks for it in view[SPLIT[name].items]})
        assert projections.store.load([gid], [name])[gid][name] == view


def test_one_seq_a_batch_across_the_whole_and_split_forms(app, small_chunks):
    """Every version from the game's start to past three chunks, one batch each: the views are
    kept whole below CHUNK seqs and split from then on, and read back as the per-line folds."""
    gid = new_freeform_game(app)
    projections = Projections(app)
    projections.catch_up()
    n = 0
    while app.get_game(gid).version < 4 * small_chunks:
        order = {"kind": "advance"} if n % 4 == 3 else ROLL  # reveals and rolls
        app.submit_order(gid, "Blue", f"o{n}", order)
        n += 1
        while projections.run_batch(limit=1):
            version = projections.position()
            stored = projections.store.load([gid], NAMES)[gid]
            lines = [li for li in app.lines(gid) if li["seq"] <= stored["history"]["version"]]
            assert stored == per_line(lines, 100)[0], version
            split = bool(chunk_rows(projections.store, gid))
            assert split == (stored["history"]["version"] >= small_chunks)


def test_a_projector_and_read_your_writes_racing_on_a_long_game_end_at_the_per_line_folds(app, small_chunks):
    """A projector thread and a reader catching the same games up for read-your-writes
    (``current``) while orders, reveals and take-backs come in: both write heads and chunks,
    each from its own reads, and the guards keep what the later version wrote. At the end the
    stored views are the per-line folds, whatever the interleaving. (Which interleavings occur
    is up to the threads: with the chunk rows' version guard removed, this failed on one of
    the two stores in about half of the runs here.)"""
    games = [new_freeform_game(app), new_freeform_game(app)]
    projector, reader = Projections(app), Projections(app)
    stop, failures = threading.Event(), []

    def project() -> None:
        try:
            while not stop.is_set():
                if not projector.run_batch(limit=3):
                    time.sleep(0.001)
        except Exception as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    thread = threading.Thread(target=project)
    thread.start()
    try:
        rnd = random.Random(12)
        for n in range(120):
            gid = rnd.choice(games)
            play_freeform(app, gid, 1, n)
            if n % 7 == 3:  # a turn ends: its epoch's rolls are settled, in chunks behind the open one
                app.submit_order(gid, "Blue", f"adv{n}", {"kind": "advance"})
            reader.current(rnd.choice(games))
    finally:
        stop.set()
        thread.join(timeout=30)
    assert not failures, failures
    projector.catch_up()
    for gid in games:
        assert app.get_game(gid).version > 4 * small_chunks
        assert projector.store.load([gid], NAMES)[gid] == per_line(app.lines(gid), 100)[0]


def stored_views_are_folds_of_their_own_prefix(app, store, games) -> None:
    """Each stored view, joined from its head and chunks, is the per-line fold of its game's log
    up to the view's own version (a view may lag the log; it may never be a mixture)."""
    for gid in games:
        lines = app.lines(gid)
        for name in SPLIT:
            view = store.load([gid], [name])[gid].get(name)
            if view is None:
                continue
            upto = [line for line in lines if line["seq"] <= view["version"]]
            assert view == folds.fold(name, upto), (gid, name, view["version"])


def fold_with_a_write_between_reads(projector, notifications, other, limit):
    """``projector._fold_batch``; with ``other``, a whole batch of ``other`` is written after
    the projector has read its views' heads and open chunks and before it reads the older chunks
    a reveal or a take-back changes (``store.load_chunks``, for ``widen``), the one window
    inside ``_fold_batch`` where another writer can land."""
    if other is None:
        return projector._fold_batch(notifications)
    store, landed = projector.store, []

    def load_chunks(*args, **kwargs):
        if not landed:
            landed.append(other.run_batch(limit=limit))
        return type(store).load_chunks(store, *args, **kwargs)

    store.load_chunks = load_chunks
    try:
        return projector._fold_batch(notifications)
    finally:
        del store.load_chunks


@pytest.mark.parametrize("seed", range(8))
def test_batches_read_and_written_in_any_order_keep_every_stored_view_a_fold(app, small_chunks, seed):
    """The interleavings the race test above leaves to the threads, made one by one: projector A
    reads and folds a batch (``_fold_batch``), and before A writes it (``_commit``) projector B
    reads, folds and writes its own (also between A's read of its views and its read of the older
    chunks it widens them with), orders, reveals and take-backs come in, and a reader catches a
    game up (``current``). The schedule is drawn from ``seed``. After every write each stored
    view is the fold of its game's log up to its own version, and at the end, at the log's head:
    a late write at an older version leaves the chunks a newer one wrote, and a write at a newer
    version rewrites every chunk its steps changed."""
    rnd = random.Random(seed)
    games = [new_freeform_game(app), new_freeform_game(app)]
    projectors, pending = [Projections(app), Projections(app)], [None, None]
    reader = Projections(app)
    for step in range(90):
        r = rnd.random()
        if r < 0.35:
            gid = rnd.choice(games)
            play_freeform(app, gid, rnd.randint(1, 4), seed * 1000 + step)
            if rnd.random() < 0.4:  # a turn ends: the reveal settles rolls in chunks behind the open one
                app.submit_order(gid, "Blue", f"adv{step}", {"kind": "advance"})
        elif r < 0.45:
            reader.current(rnd.choice(games))
            stored_views_are_folds_of_their_own_prefix(app, reader.store, games)
        else:
            k = rnd.randrange(2)
            projector = projectors[k]
            if pending[k] is None:
                start = projector.position() if rnd.random() < 0.7 else max(0, projector.position() - rnd.randint(1, 9))
                notifications = app.recorder.select_notifications(start + 1, rnd.randint(1, 12))
                if notifications:
                    between = projectors[1 - k] if rnd.random() < 0.8 else None
                    pending[k] = fold_with_a_write_between_reads(projector, notifications, between,
                                                                 rnd.randint(1, 12))
            else:
                projector._commit(pending[k])
                pending[k] = None
                stored_views_are_folds_of_their_own_prefix(app, projector.store, games)
    for k, batch in enumerate(pending):
        if batch is not None:
            projectors[k]._commit(batch)
    stored_views_are_folds_of_their_own_prefix(app, reader.store, games)
    Projections(app).catch_up()
    for gid in games:
        assert app.get_game(gid).version > 4 * small_chunks
        assert reader.store.load([gid], NAMES)[gid] == per_line(app.lines(gid), 100)[0]
