"""Group commit and the game cache (domain/service.py), on real SQLite and PostgreSQL.

Orders of different games that arrive together are saved in one transaction; a batch that fails
because one of its games lost a race is saved again member by member, so only that game's order
fails; a batch the store could not take at all fails every member at once. Commands start from
this process's copy of the game, brought up to date with what other processes recorded since.

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

    def save(self, *events, **kwargs):
        self.sizes.append(len({event.originator_id for event in events}))
        return self._save(*events, **kwargs)

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
    for gid in games:
        result = results[gid]
        assert not isinstance(result, BaseException), result
        stored = app.lines(gid)
        # Each thread got its own game's events, exactly as stored, and read-your-writes holds.
        assert result.events == stored[-len(result.events):]
        assert {line["game_id"] for line in result.events} == {gid}
        assert result.version == stored[-1]["seq"] and result.chain_head == stored[-1]["hash"]
        assert verify(stored).ok


def test_two_saves_of_one_game_in_a_batch_record_one_order_and_the_others_of_the_batch(app):
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

    won = [seat for seat in ("Blue", "Red") if not isinstance(results[seat], BaseException)]
    lost = [seat for seat in ("Blue", "Red") if isinstance(results[seat], BaseException)]
    # Both read the same version: one records, the other gets a Conflict, never a failed batch.
    assert len(won) == 1 and len(lost) == 1 and isinstance(results[lost[0]], Conflict)
    assert stored_orders(app, game) == won
    assert stored_orders(app, other) == ["x"] and stored_orders(app, third_game) == ["y"]


def test_a_batch_the_store_cannot_take_fails_every_member_at_once_and_their_retries_record_once(store_config):
    """A write lock held outside warlog past the lock timeout (1 s here): the leader's save and
    the batch queued behind it fail with the store's error, the batch in ONE attempt (saved
    again member by member, each would wait out the timeout again); nothing is recorded,
    and the same orders sent again once the lock is gone are recorded once each."""
    from dataclasses import replace

    from domain.storage import store_not_answering
    from tests.conftest import make_app
    from tests.reliability.faults import writes_blocked

    app = make_app(replace(store_config, lock_timeout=1))
    try:
        games = [new_freeform_game(app) for _ in range(4)]
        versions = {gid: app.get_game(gid).version for gid in games}
        with writes_blocked(store_config):
            gate, results = one_leader_and_three_behind(app, games)
        assert gate.sizes == [1, 3]  # the leader's save, then the queued three once: no fallback
        assert all(store_not_answering(results[gid]) for gid in games), results
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
    (``b_cached`` false) from b as loaded from the store: either was up to date when the order
    was decided, and is behind at its save."""
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


@pytest.mark.parametrize("b_cached", [False, True], ids=["b as loaded", "b as cached"])
def test_a_race_lost_inside_a_batch_fails_only_that_games_order(app, store_config, b_cached):
    """The batch fails on the store's unique key and is saved member by member: a alone, then
    b's, which fails again and is b's alone: a Conflict."""
    b, winner, result, later_saves = race_inside_a_batch(app, store_config, b_cached, "elsewhere")
    assert later_saves == [1, 1]
    assert isinstance(result, Conflict) and result.current_version == winner.version
    assert stored_orders(app, b) == ["elsewhere"]


@pytest.mark.parametrize("b_cached", [False, True], ids=["b as loaded", "b as cached"])
def test_a_race_lost_inside_a_batch_with_the_same_order_id_returns_the_winners_result(app, store_config, b_cached):
    b, winner, result, later_saves = race_inside_a_batch(app, store_config, b_cached, "b1")
    # The other process recorded this very order: the loser returns the winner's result.
    assert result.replayed and result.events == winner.events
    assert stored_orders(app, b) == ["b1"]
    assert later_saves == [1, 1]


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
        # one per multiple of 20 crossed, at the version of the save that crossed it (an order: 2 events)
        assert [(version // 20, version % 20 < 2) for version, _ in raw.snapshots(game)] == [
            (1, True), (2, True), (3, True)]
    cached = app.games.take(UUID(game))
    assert app.get_game(game).version == cached.game.version
    assert app.get_game(game).state == cached.game.state and app.get_game(game).orders == cached.game.orders


def test_a_row_changed_under_a_cached_game_is_found_by_the_check_which_stops_the_game(app, store_config):
    """The cached copy reads only the rows after its version, so a row changed below it goes
    unnoticed by the next command; the integrity check (``warlog check``, the endpoint) finds it,
    records the damage and drops the copy: every later command is refused, naming the line."""
    game = new_freeform_game(app)
    last = app.submit_order(game, "Blue", "o1", roll("o1"))
    with RawStore(store_config) as raw:
        raw.set_state(game, last.version - 1, b"{not json")
    app.submit_order(game, "Red", "unnoticed", roll("unnoticed"))
    report = app.check_integrity(game)
    assert report.failures[0][0] == last.version - 1
    with pytest.raises(DamagedLog) as refused:
        app.submit_order(game, "Red", "after", roll("after"))
    assert refused.value.seq == last.version - 1
    assert UUID(game) not in app.games._games


def test_a_game_another_process_records_in_too_is_caught_up_not_loaded_again(app, store_config):
    """Orders of one game taking turns between two processes (its players' requests on two web
    workers): each command brings this process's copy up to date with the other's order (one
    read of the rows after its version); the game is never loaded again."""
    game = new_freeform_game(app)
    app.submit_order(game, "Blue", "first", roll("first"))
    loads = []
    load = app._load
    app._load = lambda gid: loads.append(gid) or load(gid)
    other = Warlog(store_config)
    try:
        for n in range(6):
            other.submit_order(game, "Red", f"r{n}", roll(f"r{n}"))
            app.submit_order(game, "Blue", f"b{n}", roll(f"b{n}"))
    finally:
        other.close()
    assert loads == []
    assert stored_orders(app, game) == ["first", *(f"{p}{n}" for n in range(6) for p in "rb")]
    assert verify(app.lines(game)).ok


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
