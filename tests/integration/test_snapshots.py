"""Snapshots (at the end of each save reaching a multiple of WARLOG_SNAPSHOT_INTERVAL, 20 in the
fixtures) on SQLite and PostgreSQL.

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


@pytest.fixture
def saves(app) -> list[tuple[int, int]]:
    """(first, last) version of each save the app makes from now on (one game per save here)."""
    made = []
    save = app.save

    def spying(*aggregates, **kwargs):
        recordings = save(*aggregates, **kwargs)
        versions = [r.notification.originator_version for r in recordings]
        made.append((min(versions), max(versions)))
        return recordings

    app.save = spying
    return made


def test_the_fixtures_snapshot_every_twenty_events(app):
    assert app.config.snapshot_interval == INTERVAL
    assert app.snapshotting_intervals == {}, "snapshots are warlog's to take (Warlog._save), not eventsourcing's"


def long_game_with_a_multiple_inside_a_save(app: Warlog, saves: list[tuple[int, int]]) -> str:
    """long_game, then advances (several events each) until a multiple of the interval falls
    inside a save rather than at its end."""
    gid = long_game(app)
    app.answer_take_back(gid, "Blue", accept=False)
    for n in range(200):
        if any(last % INTERVAL and last // INTERVAL > (first - 1) // INTERVAL for first, last in saves):
            return gid
        app.submit_order(gid, ("Blue", "Red")[n % 2], f"advance-{n}", {"kind": "advance"})
    raise AssertionError("no save straddled a multiple of the interval")


def test_a_snapshot_is_stored_at_the_end_of_each_save_that_reaches_a_multiple_of_the_interval(
        app, store_config, saves):
    gid = long_game_with_a_multiple_inside_a_save(app, saves)
    version = app.get_game(gid).version
    assert version > 3 * INTERVAL + INTERVAL // 2, "the game is too short to test snapshots"
    reaching = [(first, last) for first, last in saves if last // INTERVAL > (first - 1) // INTERVAL]
    assert len(reaching) == version // INTERVAL, "a save reached two multiples: a longer interval is needed here"
    with RawStore(store_config) as raw:
        stored = raw.snapshots(gid)
    assert [v for v, _ in stored] == [last for _, last in reaching]
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


def test_every_snapshot_holds_the_game_as_its_events_fold_it_at_the_snapshots_version(app, store_config, saves):
    """Snapshots are taken from the game in memory at the end of a save (Warlog._take_snapshots),
    also when the multiple fell inside it: each must be the aggregate its events alone give."""
    gid = long_game_with_a_multiple_inside_a_save(app, saves)
    stored = list(app.snapshots.get(UUID(gid)))
    assert len(stored) >= 4 and any(s.originator_version % INTERVAL for s in stored)
    for snapshot in stored:
        *_, folded = fold(app, gid, upto=snapshot.originator_version)
        expected = Game.Snapshot.take(folded)
        assert snapshot.originator_version == expected.originator_version == folded.version
        assert snapshot.state == expected.state, f"snapshot at {snapshot.originator_version}"

