"""Group commit and the game cache (domain/service.py), on real SQLite and PostgreSQL.

Orders of different games that arrive together are saved in one transaction; a batch that fails
because one of its games lost a race is saved again member by member, so only that game's order
fails; a batch the store could not take at all fails every member at once. Commands start from this process's copy of the game, brought up to date with what other
processes recorded since.

To make a batch happen on cue, ``Gate`` holds the first save back (before it takes the store's
writer lock) until the wanted number of other saves has queued behind it: no timing is assumed.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from uuid import UUID

import pytest

from domain.errors import Conflict, DamagedLog, RuleViolation, StaleVersion
from domain.service import Warlog
from domain.verify import verify
from tests.conftest import new_freeform_game
from tests.integration.rawstore import RawStore

DEADLINE = 30.0


def roll(purpose: str) -> dict:
    return {"kind": "roll", "dice": "2d6", "purpose": purpose, "target": {"compare": ">=", "value": 7}}


class Gate:
    """The first batch waits until ``queued`` saves wait behind it and the test opens the gate.
    Counts the games of every call of ``app.save``."""

    def __init__(self, app: Warlog, queued: int):
        self.app, self.queued = app, queued
        self.entered = threading.Event()
        self.opened = threading.Event()
        self.sizes: list[int] = []
        self._save, self._exclusive = app.save, app.group_commit.exclusive
        app.save = self.save
        app.group_commit.exclusive = self.exclusive

    @contextmanager
    def exclusive(self):
        if not self.entered.is_set():
            self.entered.set()
            assert self.opened.wait(DEADLINE), "the gate was never opened"
        with self._exclusive():
            yield

    def save(self, *games, **kwargs):
        self.sizes.append(len(games))
        return self._save(*games, **kwargs)

    def wait_for_queue(self) -> None:
        deadline = time.monotonic() + DEADLINE
        while len(self.app.group_commit._queue) < self.queued:
            assert time.monotonic() < deadline, "the saves never queued up"
            time.sleep(0.005)


def in_thread(results: dict, key: str, call) -> threading.Thread:
    def run():
        try:
            results[key] = call()
        except BaseException as exc:  # handed to the test, which asserts on it
            results[key] = exc
    thread = threading.Thread(target=run)
    thread.start()
    return thread


def join_all(threads: list[threading.Thread]) -> None:
    for t in threads:
        t.join(DEADLINE)
        assert not t.is_alive(), "a submitting thread hung"


def stored_orders(app: Warlog, game_id: str) -> list[str]:
    return [line["data"]["order_id"] for line in app.lines(game_id) if line["type"] == "OrderAccepted"]


# --------------------------------------------------------------------------------- batches --
def one_leader_and_three_behind(app: Warlog, games: list[str]) -> tuple[Gate, dict]:
    """Blue's order "a" in games[0] leads; Red's "b" in each of the other three queues behind
    it, and the gate opens. Returns the gate and each game's result (or exception)."""
    gate = Gate(app, queued=3)
    results: dict = {}
    first = in_thread(results, games[0], lambda: app.submit_order(games[0], "Blue", "a", roll("a")))
    assert gate.entered.wait(DEADLINE)
    others = [in_thread(results, g, lambda g=g: app.submit_order(g, "Red", "b", roll("b"))) for g in games[1:]]
    gate.wait_for_queue()
    gate.opened.set()
    join_all([first, *others])
    return gate, results


def test_orders_of_different_games_arriving_together_are_saved_in_one_transaction(app):
    games = [new_freeform_game(app) for _ in range(4)]
    gate, results = one_leader_and_three_behind(app, games)

    assert gate.sizes == [1, 3]  # the leader's own save, then the three queued behind it in one
    assert app.group_commit.batches == 1 and app.group_commit.fallbacks == 0
    for gid in games:
        result = results[gid]
        assert not isinstance(result, BaseException), result
        stored = app.lines(gid)
        # Each thread got its own game's events, exactly as stored, and read-your-writes holds.
        assert result.events == stored[-len(result.events):]
        assert {line["game_id"] for line in result.events} == {gid}
        assert result.version == stored[-1]["seq"] and result.chain_head == stored[-1]["hash"]
        assert verify(stored).ok


def test_two_saves_of_one_game_never_share_a_batch(app):
    game, other, third_game = (new_freeform_game(app) for _ in range(3))
    gate = Gate(app, queued=3)
    results: dict = {}
    first = in_thread(results, "lead", lambda: app.submit_order(other, "Blue", "x", roll("x")))
    assert gate.entered.wait(DEADLINE)
    racers = [in_thread(results, seat, lambda seat=seat: app.submit_order(game, seat, seat, roll(seat)))
              for seat in ("Blue", "Red")]
    third = in_thread(results, "third", lambda: app.submit_order(third_game, "Red", "y", roll("y")))
    gate.wait_for_queue()
    gate.opened.set()
    join_all([first, *racers, third])

    assert 3 not in gate.sizes  # the two saves of `game` went to different batches
    won = [seat for seat in ("Blue", "Red") if not isinstance(results[seat], BaseException)]
    lost = [seat for seat in ("Blue", "Red") if isinstance(results[seat], BaseException)]
    # Both read the same version: one records, the other gets a Conflict, never a failed batch.
    assert len(won) == 1 and len(lost) == 1 and isinstance(results[lost[0]], Conflict)
    assert stored_orders(app, game) == won
    assert stored_orders(app, other) == ["x"] and stored_orders(app, third_game) == ["y"]


def test_a_batch_the_store_cannot_take_fails_every_member_at_once_and_their_retries_record_once(store_config):
    """A write lock held outside warlog past the lock timeout (1 s here): the leader's save and
    the batch queued behind it fail with the store's OperationalError, the batch in ONE attempt
    (saved again member by member, each would wait out the timeout again); nothing is recorded,
    and the same orders sent again once the lock is gone are recorded once each."""
    from dataclasses import replace

    from eventsourcing.persistence import OperationalError

    from tests.conftest import make_app
    from tests.reliability.faults import writes_blocked

    app = make_app(replace(store_config, lock_timeout=1))
    try:
        games = [new_freeform_game(app) for _ in range(4)]
        versions = {gid: app.get_game(gid).version for gid in games}
        with writes_blocked(store_config):
            gate, results = one_leader_and_three_behind(app, games)
        assert gate.sizes == [1, 3]  # the leader's save, then the queued three once: no fallback
        assert app.group_commit.fallbacks == 0
        assert all(isinstance(results[gid], OperationalError) for gid in games), results
        assert {gid: app.get_game(gid).version for gid in games} == versions  # nothing recorded
        for n, gid in enumerate(games):
            seat, order_id = ("Blue", "a") if n == 0 else ("Red", "b")
            again = app.submit_order(gid, seat, order_id, roll(order_id))
            assert not again.replayed and stored_orders(app, gid) == [order_id]
    finally:
        app.close()


def batch_of_a_and_b(app: Warlog, a: str, b: str, meanwhile) -> tuple[Gate, dict]:
    """A third game's order leads; Blue's "a1" in game a and "b1" in game b queue behind it as
    one batch; ``meanwhile()`` runs while they wait, then the gate opens. Returns the gate and
    each game's result (or exception)."""
    c = new_freeform_game(app)
    gate = Gate(app, queued=2)
    results: dict = {}
    lead = in_thread(results, "lead", lambda: app.submit_order(c, "Blue", "c1", roll("c1")))
    assert gate.entered.wait(DEADLINE)
    ta = in_thread(results, "a", lambda: app.submit_order(a, "Blue", "a1", roll("a1")))
    tb = in_thread(results, "b", lambda: app.submit_order(b, "Blue", "b1", roll("b1")))
    gate.wait_for_queue()  # both have their game and rolled; neither is saved yet
    meanwhile()
    gate.opened.set()
    join_all([lead, ta, tb])
    return gate, results


def race_inside_a_batch(app: Warlog, store_config, b_cached: bool, order_id_elsewhere: str):
    """Games a and b saved in one batch (``batch_of_a_and_b``) while another process records
    ``order_id_elsewhere`` in game b. b's order comes from this process's cached copy of b, or
    (``b_cached`` false) from b as loaded from the store."""
    a, b = new_freeform_game(app), new_freeform_game(app)
    if not b_cached:
        app.games.take(UUID(b))
    won = []

    def another_process_orders_in_b():
        other = Warlog(store_config)
        try:
            won.append(other.submit_order(b, "Blue", order_id_elsewhere, roll("b1")))
        finally:
            other.close()

    gate, results = batch_of_a_and_b(app, a, b, another_process_orders_in_b)
    winner = won[0]
    assert gate.sizes[:2] == [1, 2]  # c alone, then the batch of a and b, which failed
    assert not isinstance(results["a"], BaseException), results["a"]
    assert stored_orders(app, a) == ["a1"]
    assert results["a"].events == app.lines(a)[-len(results["a"].events):]
    for gid in (a, b):
        assert verify(app.lines(gid)).ok
    return b, winner, results["b"], gate.sizes[2:]


def test_a_race_lost_inside_a_batch_by_a_game_as_loaded_fails_only_that_games_order(app, store_config):
    """The batch fails on the store's unique key and is saved member by member: a alone, then
    b's, which fails again and is b's alone."""
    b, winner, result, later_saves = race_inside_a_batch(app, store_config, False, "elsewhere")
    assert later_saves == [1, 1] and app.group_commit.fallbacks == 1
    assert isinstance(result, Conflict) and result.current_version == winner.version
    assert stored_orders(app, b) == ["elsewhere"]


def test_a_race_lost_inside_a_batch_by_a_cached_copy_runs_the_order_again_on_the_game_as_stored(app, store_config):
    """The cached copy was not checked before the order (its save checks it): its guard finds the
    other process's rows after it, the batch is written again without b (no member-by-member
    fallback), and b's order is decided again on the game as stored, after the other's."""
    b, winner, result, later_saves = race_inside_a_batch(app, store_config, True, "elsewhere")
    assert later_saves == [1, 1] and app.group_commit.fallbacks == 0  # a alone, then b's order again
    assert not isinstance(result, BaseException), result
    assert stored_orders(app, b) == ["elsewhere", "b1"]
    assert result.events[0]["seq"] == winner.version + 1


@pytest.mark.parametrize("b_cached", [False, True], ids=["b as loaded", "b as cached"])
def test_a_race_lost_inside_a_batch_with_the_same_order_id_returns_the_winners_result(app, store_config, b_cached):
    b, winner, result, later_saves = race_inside_a_batch(app, store_config, b_cached, "b1")
    # The other process recorded this very order: the loser returns the winner's result.
    assert result.replayed and result.events == winner.events
    assert stored_orders(app, b) == ["b1"]
    assert (later_saves, app.group_commit.fallbacks) == (([1], 0) if b_cached else ([1, 1], 1))


def test_many_threads_on_many_games_record_every_order_once(app):
    games = [new_freeform_game(app) for _ in range(6)]
    threads_per_game, orders_each = 2, 5
    results: dict = {}

    def player(gid: str, seat: str) -> list:
        done = []
        for n in range(orders_each):
            order_id = f"{seat}-{n}"
            for _attempt in range(200):
                try:
                    done.append(app.submit_order(gid, seat, order_id, roll(order_id)))
                    break
                except Conflict:
                    continue  # the other seat of this game saved first: read again and retry
            else:
                raise AssertionError(f"{order_id} never recorded")
        return done

    threads = [in_thread(results, f"{gid}/{seat}", lambda gid=gid, seat=seat: player(gid, seat))
               for gid in games for seat in ("Blue", "Red")[:threads_per_game]]
    join_all(threads)
    for key, value in results.items():
        assert not isinstance(value, BaseException), f"{key}: {value!r}"
    for gid in games:
        lines = app.lines(gid)  # strict: gapless seqs
        assert verify(lines).ok
        assert sorted(stored_orders(app, gid)) == sorted(f"{s}-{n}" for s in ("Blue", "Red") for n in range(orders_each))
        for seat in ("Blue", "Red"):
            for result in results[f"{gid}/{seat}"]:
                assert result.events == lines[result.events[0]["seq"] - 1:result.version]


# ------------------------------------------------------------------------------ game cache --
def test_a_command_starts_from_the_cached_game_brought_up_to_date_with_other_processes(app, store_config):
    game = new_freeform_game(app)
    app.submit_order(game, "Blue", "o1", roll("o1"))
    assert len(app.games) >= 1
    other = Warlog(store_config)
    try:
        moved = other.submit_order(game, "Red", "o2", roll("o2"))
    finally:
        other.close()
    # The cached copy is behind the store; the command sees the other process's order first.
    result = app.submit_order(game, "Blue", "o3", roll("o3"), expected_version=moved.version)
    assert result.events[0]["seq"] == moved.version + 1
    assert stored_orders(app, game) == ["o1", "o2", "o3"]
    with pytest.raises(StaleVersion):
        app.submit_order(game, "Red", "o4", roll("o4"), expected_version=moved.version)
    assert verify(app.lines(game)).ok


def test_a_refused_order_leaves_the_cached_game_as_stored(app):
    game = new_freeform_game(app)
    app.submit_order(game, "Blue", "o1", roll("o1"))
    with pytest.raises(RuleViolation):
        app.submit_order(game, "Blue", "o2", {"kind": "roll", "dice": "2d6", "purpose": "p", "replaces": 1})
    again = app.submit_order(game, "Blue", "o3", roll("o3"))
    assert again.events[0]["seq"] == app.get_game(game).version - len(again.events) + 1
    assert stored_orders(app, game) == ["o1", "o3"]
    assert app.get_game(game).version == again.version


def test_the_cached_game_is_used_until_the_snapshot_and_past_it(app, store_config):
    game = new_freeform_game(app)
    loads = []
    load = app._load
    app._load = lambda gid: loads.append(gid) or load(gid)
    for n in range(30):  # past the snapshot at 20 events (the fixtures' interval)
        app.submit_order(game, "Blue", f"o{n}", roll(f"o{n}"))
    assert loads == []  # every command started from the cached copy
    with RawStore(store_config) as raw:
        assert [version for version, _ in raw.snapshots(game)] == [20, 40, 60]
    cached = app.games.take(UUID(game))
    assert cached.base == 60 and app.get_game(game).version == cached.game.version
    assert app.get_game(game).state == cached.game.state and app.get_game(game).orders == cached.game.orders


@pytest.mark.parametrize("damage", ["garbage", "deleted"])
@pytest.mark.parametrize("events_before", [0, 40], ids=["before the first snapshot", "after a snapshot"])
def test_a_row_changed_outside_warlog_is_noticed_even_with_the_game_cached(app, store_config, damage, events_before):
    game = new_freeform_game(app)
    for n in range(events_before // 2):
        app.submit_order(game, "Blue", f"o{n}", roll(f"o{n}"))
    last = app.submit_order(game, "Blue", "last", roll("last"))
    target = last.version - 1  # a row after the latest snapshot: one a load would read
    with RawStore(store_config) as raw:
        if damage == "garbage":
            raw.set_state(game, target, b"{not json")
        else:
            raw.delete(game, target)
    with pytest.raises(DamagedLog):
        app.submit_order(game, "Red", "after", roll("after"))
    with pytest.raises(DamagedLog):
        app.join(game, "Red", "again")


def test_an_accepted_order_on_the_cached_game_asks_nothing_of_the_store_before_its_save(app):
    """The copy is checked by the save itself (its guard); a refused order is refused only after
    one check of the copy, since a copy that is behind may refuse what the game allows."""
    game = new_freeform_game(app)
    app.submit_order(game, "Blue", "o1", roll("o1"))
    checks = []
    row_digests = app.row_digests
    app.row_digests = lambda *args: checks.append(args) or row_digests(*args)
    for n in range(2, 6):
        app.submit_order(game, "Blue", f"o{n}", roll(f"o{n}"))
    assert checks == []
    with pytest.raises(RuleViolation):
        app.submit_order(game, "Blue", "bad", {"kind": "roll", "dice": "2d6", "purpose": "p", "replaces": 1})
    assert len(checks) == 1


def test_a_game_another_process_records_in_too_is_checked_before_its_commands_not_loaded_again(app, store_config):
    """Orders of one game taking turns between two processes (its players' requests on two web
    workers): the copy is found behind once, at its save, and the game loaded afresh; from then
    on each command checks the copy first (one query) and brings it up to date with the other
    process's order, rather than failing at the save and loading the game again. Once the
    other process stops, a check that finds the copy up to date lets the next command go
    unchecked again."""
    game = new_freeform_game(app)
    app.submit_order(game, "Blue", "first", roll("first"))
    loads, checks = [], []
    load, row_digests = app._load, app.row_digests
    app._load = lambda gid: loads.append(gid) or load(gid)
    app.row_digests = lambda *args: checks.append(args) or row_digests(*args)
    other = Warlog(store_config)
    try:
        for n in range(6):
            other.submit_order(game, "Red", f"r{n}", roll(f"r{n}"))
            app.submit_order(game, "Blue", f"b{n}", roll(f"b{n}"))
    finally:
        other.close()
    assert len(loads) == 1 and len(checks) == 5  # found behind once; then checked, never loaded again
    app.submit_order(game, "Blue", "alone1", roll("alone1"))  # checked: up to date
    app.submit_order(game, "Blue", "alone2", roll("alone2"))  # not checked
    assert len(loads) == 1 and len(checks) == 6
    assert stored_orders(app, game) == ["first", *(f"{p}{n}" for n in range(6) for p in "rb"), "alone1", "alone2"]
    assert verify(app.lines(game)).ok


def test_a_row_changed_under_a_cached_game_inside_a_batch_fails_only_that_games_order(app, store_config):
    """The batch's guards find game b's rows changed: nothing of the batch is written, a's order
    is written again alone (no member-by-member fallback), and b's order, run again on b as
    stored, finds the damaged row."""
    a, b = new_freeform_game(app), new_freeform_game(app)
    last = app.submit_order(b, "Red", "b0", roll("b0"))

    def damage_b():
        with RawStore(store_config) as raw:
            raw.set_state(b, last.version, b"{not json")

    gate, results = batch_of_a_and_b(app, a, b, damage_b)
    assert gate.sizes == [1, 2, 1]
    assert app.group_commit.fallbacks == 0
    assert isinstance(results["b"], DamagedLog), results["b"]
    assert stored_orders(app, a) == ["a1"] and verify(app.lines(a)).ok
    with RawStore(store_config) as raw:
        assert raw.versions(b) == list(range(1, last.version + 1))  # nothing after the damaged row


@pytest.mark.parametrize("change", ["changed", "deleted", "grown", "none"])
def test_a_save_with_a_guard_writes_only_if_the_guarded_rows_are_as_they_were(app, store_config, change):
    """The recorder's side of the cache's check (``storage.Guard``), on either store: the rows
    after ``after`` up to ``upto``, counted and digested as ``fold_row`` does, and none after
    ``upto``; the save with them unchanged is written, with one changed or deleted, or a row
    added after them, raises ``StaleCopies`` naming the game and writes nothing, not even the
    rows of an unguarded game saved with it."""
    import hashlib

    from eventsourcing.persistence import StoredEvent

    from domain.storage import Guard, StaleCopies, fold_row

    guarded, other = new_freeform_game(app), new_freeform_game(app)
    for n in range(4):
        app.submit_order(guarded, "Blue", f"o{n}", roll(f"o{n}"))
    gid = UUID(guarded)
    rows = {row.originator_version: row.state for row in app.recorder.select_events(gid)}
    top = max(rows)
    digest = hashlib.sha256()
    for version in range(3, top + 1):
        fold_row(digest, rows[version])
    guard = Guard(gid, 2, top, top - 2, digest.digest())
    with RawStore(store_config) as raw:
        if change == "changed":
            raw.set_state(guarded, top - 1, rows[top - 1] + b" ")
        elif change == "deleted":
            raw.delete(guarded, 4)
        elif change == "grown":
            raw.copy_row(guarded, top, top + 1)  # as another process's row after the guarded ones
    first = top + (2 if change == "grown" else 1)  # a grown game's new rows do not collide
    new_rows = [StoredEvent(UUID(other), app.get_game(other).version + 1, "tests:Other", b"{}"),
                StoredEvent(gid, first, "tests:Guarded", b"{}")]
    if change == "none":
        app.recorder.insert_events(new_rows, guards=[guard])
        assert app.recorder.select_events(gid, gt=top)[0].topic == "tests:Guarded"
    else:
        with pytest.raises(StaleCopies) as raised:
            app.recorder.insert_events(new_rows, guards=[guard])
        assert raised.value.ids == {gid}
        assert [e.originator_version for e in app.recorder.select_events(gid, gt=top)] == (
            [top + 1] if change == "grown" else [])
        assert app.recorder.select_events(UUID(other), gt=new_rows[0].originator_version - 1) == []


def test_sqlite_writers_of_all_processes_take_turns_on_one_lock_file(sqlite_config, postgres_config):
    import fcntl

    from domain.storage import writer_lock

    with writer_lock(sqlite_config):
        with open(f"{sqlite_config.sqlite_path}.writer-lock", "a+b") as other:  # as another process would
            with pytest.raises(BlockingIOError):
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    with open(f"{sqlite_config.sqlite_path}.writer-lock", "a+b") as other:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released with the block
        fcntl.flock(other, fcntl.LOCK_UN)
    with writer_lock(postgres_config):  # PostgreSQL queues writers itself: nothing to hold
        pass


def test_row_digests_are_the_fold_of_the_stored_rows_on_either_store(app):
    """What the cache asks of the store (storage.RowDigests: computed by PostgreSQL, read and
    hashed here on SQLite) is (count, fold_row's SHA-256, top) of the stored rows, whatever the
    range: the same definition the cache builds its own digest with."""
    import hashlib

    from domain.storage import fold_row
    game = new_freeform_game(app)
    for n in range(12):
        app.submit_order(game, "Blue", f"o{n}", roll(f"o{n}"))
    gid = UUID(game)
    rows = {row.originator_version: row.state for row in app.recorder.select_events(gid)}
    top = max(rows)
    for after, upto in ((0, top), (0, 5), (3, top), (7, 9), (top, top), (top - 1, top + 5), (5, 4)):
        digest = hashlib.sha256()
        picked = [v for v in sorted(rows) if after < v <= upto]
        for v in picked:
            fold_row(digest, rows[v])
        assert app.row_digests(gid, after, upto) == (len(picked), digest.digest(), max(top, after)), (after, upto)
