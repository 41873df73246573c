"""Snapshots (every WARLOG_SNAPSHOT_INTERVAL=20 events in the fixtures) on SQLite and PostgreSQL.

A game loaded from a snapshot plus the events after it must be the very same aggregate as the
one folded from its events alone, at its latest version and at every earlier one.
"""

from __future__ import annotations

from uuid import UUID

import pytest

from domain.errors import RuleViolation
from domain.game import Game
from domain.service import Warlog
from tests.conftest import new_freeform_game
from tests.integration.rawstore import RawStore

INTERVAL = 20


def long_game(app: Warlog) -> str:
    """A game of well over 3 snapshot intervals: rolls, VP, phases and turns (dice epochs
    revealed and opened), take-backs accepted and declined, one still waiting at the end."""
    gid = new_freeform_game(app, phases=("Move", "Fight", "Rally"))
    seats = ("Blue", "Red")
    for i in range(40):
        seat = seats[i % 2]
        other = seats[(i + 1) % 2]
        app.submit_order(gid, seat, f"roll-{i}", {"kind": "roll", "dice": "2d6", "purpose": f"p{i}",
                                                   "target": {"compare": ">=", "value": 7}})
        app.submit_order(gid, seat, f"vp-{i}", {"kind": "vp", "side": seat, "delta": i + 1, "reason": "r"})
        if i % 3 == 0:
            app.submit_order(gid, seat, f"adv-{i}", {"kind": "advance"})
        if i % 7 == 0:
            app.request_take_back(gid, seat, reason="misclick")
            app.answer_take_back(gid, other, accept=True)
        elif i % 11 == 0:
            app.request_take_back(gid, seat)
            app.answer_take_back(gid, other, accept=False)
    app.submit_order(gid, "Red", "note-last", {"kind": "note", "text": "over to you"})
    app.request_take_back(gid, "Red", reason="left waiting")
    return gid


def fold(app: Warlog, gid: str, upto: int | None = None):
    """The aggregate from its stored events alone, no snapshot, yielded after each event."""
    game = None
    for event in app.events.get(UUID(gid), lte=upto):
        game = event.mutate(game)
        yield game


def comparable(game: Game) -> dict:
    """Everything the aggregate holds (ids, version, timestamps, state, dice, orders, seats,
    take-back, chain head...), pending events aside."""
    return {k: v for k, v in game.__dict__.items() if k != "_pending_events"}


@pytest.fixture
def game_with_snapshots(app, store_config):
    gid = long_game(app)
    return app, store_config, gid


def test_the_fixtures_snapshot_every_twenty_events(app):
    assert app.config.snapshot_interval == INTERVAL
    assert app.snapshotting_intervals == {Game: INTERVAL}


def test_a_snapshot_is_stored_at_every_multiple_of_the_interval(game_with_snapshots):
    app, config, gid = game_with_snapshots
    version = app.get_game(gid).version
    assert version > 3 * INTERVAL + INTERVAL // 2, "the game is too short to test snapshots"
    with RawStore(config) as raw:
        stored = raw.snapshots(gid)
    assert [v for v, _ in stored] == list(range(INTERVAL, version + 1, INTERVAL))
    assert all(topic.endswith(":Snapshot") for _, topic in stored)


def test_the_game_loaded_from_a_snapshot_equals_the_game_folded_from_its_events(game_with_snapshots):
    app, config, gid = game_with_snapshots
    fresh = Warlog(config)  # nothing cached: whatever it knows comes from the store
    try:
        asked_after = []
        event_get = fresh.repository.event_store.get

        def spying_get(*args, **kwargs):
            asked_after.append(kwargs.get("gt"))
            return event_get(*args, **kwargs)

        fresh.repository.event_store.get = spying_get
        loaded = fresh.get_game(gid)
        assert asked_after and asked_after[-1] is not None and asked_after[-1] >= 3 * INTERVAL, (
            f"the game was not loaded from a snapshot (events read after {asked_after})")
    finally:
        fresh.close()
    *_, folded = fold(app, gid)
    assert loaded.version == folded.version
    assert loaded.state == folded.state
    assert loaded.dice == folded.dice
    assert loaded.orders == folded.orders
    assert loaded.chain_head == folded.chain_head == app.check_integrity(gid).chain_head
    assert loaded.take_back == folded.take_back is not None
    assert comparable(loaded) == comparable(folded)


def test_get_game_at_every_version_equals_the_fold_up_to_it(game_with_snapshots):
    app, config, gid = game_with_snapshots
    fresh = Warlog(config)
    try:
        checked = 0
        for k, folded in enumerate(fold(app, gid), start=1):
            at_k = fresh.get_game(gid, version=k)
            assert at_k.version == k
            assert comparable(at_k) == comparable(folded), f"version {k} differs"
            checked += 1
        assert checked == fresh.get_game(gid).version
    finally:
        fresh.close()


def test_get_game_at_a_version_shows_the_state_then(game_with_snapshots):
    """Spot checks of time travel across snapshot boundaries, against the export."""
    app, config, gid = game_with_snapshots
    lines = list(app.lines(gid))
    vp = {"Blue": 0, "Red": 0}
    head = None
    for line in lines:
        if line["type"] == "VPScored":
            vp[line["data"]["side"]] = line["data"]["total"]
        elif line["type"] == "TakeBackAccepted":
            vp = dict(line["data"]["restored"]["vp"])
        head = line["hash"]
        k = line["seq"]
        if k % INTERVAL in (INTERVAL - 1, 0, 1) or line["type"] == "TakeBackAccepted":
            game = app.get_game(gid, version=k)
            assert game.version == k
            assert game.chain_head == head
            assert game.state["vp"] == vp, f"VP at version {k}"


def test_a_take_back_waiting_at_the_latest_snapshot_still_blocks_orders(app, store_config):
    """The pending take-back and the last order it concerns come back from a snapshot."""
    gid = new_freeform_game(app)
    n = 0
    while app.get_game(gid).version < 2 * INTERVAL - 1:
        app.submit_order(gid, "Blue", f"n{n}", {"kind": "note", "text": str(n)})
        n += 1
    app.request_take_back(gid, "Blue")  # this very event is at version 2 * INTERVAL
    assert app.get_game(gid).version == 2 * INTERVAL
    with RawStore(store_config) as raw:
        assert raw.snapshots(gid)[-1][0] == 2 * INTERVAL
    fresh = Warlog(store_config)
    try:
        with pytest.raises(RuleViolation) as refused:
            fresh.submit_order(gid, "Red", "blocked", {"kind": "note", "text": "x"})
        assert refused.value.rule == "FF 6"
        fresh.answer_take_back(gid, "Red", accept=True)
        game = fresh.get_game(gid)
        assert f"n{n - 1}" in game.orders and game.take_back is None
    finally:
        fresh.close()


def test_a_snapshot_taken_from_the_game_in_memory_is_the_one_eventsourcing_would_take(app, store_config):
    """Warlog._take_snapshots takes a snapshot from the game in memory when a save ends at the
    multiple, and eventsourcing's way (the game read back from the store) when it falls inside
    a save; both must store the same aggregate state."""
    reads = []
    take = app.take_snapshot
    app.take_snapshot = lambda aggregate_id, version=None, **kw: (reads.append(version),
                                                                   take(aggregate_id, version=version, **kw))[1]
    gid = long_game(app)
    app.answer_take_back(gid, "Blue", accept=False)
    for n in range(200):  # advances record several events each: one soon straddles a multiple
        if reads:
            break
        app.submit_order(gid, ("Blue", "Red")[n % 2], f"advance-{n}", {"kind": "advance"})
    stored = list(app.snapshots.get(UUID(gid)))
    from_memory = [s.originator_version for s in stored if s.originator_version not in reads]
    assert from_memory and reads, (from_memory, reads)  # the game exercises both ways
    for snapshot in stored:
        rebuilt = app.repository.get(UUID(gid), version=snapshot.originator_version)
        expected = Game.Snapshot.take(rebuilt)
        assert snapshot.state == expected.state, f"snapshot at {snapshot.originator_version}"
        assert snapshot.originator_version == expected.originator_version
