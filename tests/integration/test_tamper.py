"""Tampering with stored events by SQL, below the application, on SQLite and on PostgreSQL.

Every change, deletion, insertion or reordering of a game's stored events must be flagged by
``check_integrity`` (read by a fresh application, no cache), by an umpire's ``verify_text`` of the
export, and by ``import_lines``, each naming the same first affected line (= seq).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pytest

from domain import chain
from domain.errors import Conflict, DamagedLog, GameNotFound, IntegrityFailure
from domain.events import ENVELOPE
from domain.service import Warlog
from domain.verify import verify_text
from tests.conftest import make_app, new_freeform_game
from tests.integration.rawstore import RawStore, store_like


# --------------------------------------------------------------------------------- the game --
@pytest.fixture
def store_config(store_config):
    """The store of conftest with snapshots taken past the played game's last line, so that a load
    reads (and verifies) every line of it, whatever the events a creation or a turn records."""
    return dataclasses.replace(store_config, snapshot_interval=60)


def played_game(app: Warlog) -> str:
    """A game with rolls in a revealed epoch (0) and in an open one (1), VP and a turn: 20
    events, so that a load (from no snapshot: this store takes one every 60) reads them all."""
    gid = new_freeform_game(app, phases=("Turn",))
    app.submit_order(gid, "Blue", "r1", {"kind": "roll", "dice": "2d6", "purpose": "fire"})
    app.submit_order(gid, "Red", "v1", {"kind": "vp", "side": "Red", "delta": 3, "reason": "town"})
    app.submit_order(gid, "Red", "r2", {"kind": "roll", "dice": "3d6", "purpose": "morale"})
    app.submit_order(gid, "Blue", "a1", {"kind": "advance"})  # turn 2: epoch 0 revealed, 1 opened
    app.submit_order(gid, "Blue", "r3", {"kind": "roll", "dice": "d10", "purpose": "weather"})
    assert app.get_game(gid).version == 20
    return gid


def export_text(app: Warlog, gid: str) -> list[str]:
    return list(app.export(gid))


def seqs_of(lines: list[dict], type_: str) -> list[int]:
    return [line["seq"] for line in lines if line["type"] == type_]


def rehash(raw: RawStore, gid: str, first: int, last: int) -> None:
    """What a careful tamperer does: recompute prev_hash and hash of stored events first..last."""
    prev = json.loads(raw.state(gid, first - 1))["hash"] if first > 1 else chain.GENESIS
    topics = {v: t for v, t, _ in raw.events(gid)}
    for version in range(first, last + 1):
        state = json.loads(raw.state(gid, version))
        data = {k: v for k, v in state.items() if k not in ENVELOPE}
        if data.get("concealed") is None:  # stored as null, left out of the data (events.data_of)
            data.pop("concealed", None)
        state["prev_hash"] = prev
        state["hash"] = chain.line_hash({"game_id": gid, "seq": version, "type": topics[version].split(":")[-1],
                                         "timestamp": state["timestamp"]["_data_"], "data": data,
                                         "prev_hash": prev})
        raw.set_state(gid, version, json.dumps(state).encode())
        prev = state["hash"]


def edit(raw: RawStore, gid: str, version: int, change) -> None:
    state = json.loads(raw.state(gid, version))
    change(state)
    raw.set_state(gid, version, json.dumps(state).encode())


def other_face(die: dict) -> int:
    return die["value"] % die["sides"] + 1


# ----------------------------------------------------------------------------- the tampers --
# Each takes (raw store, game id, the intact export lines) and returns the seq that must be
# named first.
def change_die_value(raw, gid, lines):
    k = seqs_of(lines, "DiceRolled")[0]  # a roll of the revealed epoch 0
    edit(raw, gid, k, lambda s: s["dice"][0].update(value=other_face(s["dice"][0])))
    return k


def change_vp_total(raw, gid, lines):
    k = seqs_of(lines, "VPScored")[0]
    edit(raw, gid, k, lambda s: s.update(total=s["total"] + 10))
    return k


def change_order_and_rehash_it(raw, gid, lines):
    """The altered line is self-consistent; the next line's link to it is not."""
    k = seqs_of(lines, "VPScored")[0] - 1  # the OrderAccepted of the VP order
    edit(raw, gid, k, lambda s: s["order"].update(reason="never said this"))
    rehash(raw, gid, k, k)
    return k + 1


def forge_die_and_rewrite_the_whole_chain(raw, gid, lines):
    """Every hash recomputed to the end: only the revealed epoch's seed gives the forgery away."""
    k = seqs_of(lines, "DiceRolled")[1]  # the second roll of the revealed epoch 0
    edit(raw, gid, k, lambda s: s["dice"][0].update(value=other_face(s["dice"][0])))
    rehash(raw, gid, k, len(lines))
    return k


def delete_a_middle_event(raw, gid, lines):
    k = seqs_of(lines, "VPScored")[0]
    raw.delete(gid, k)
    return k


def delete_the_first_event(raw, gid, lines):
    raw.delete(gid, 1)
    return 1


def insert_a_copy_at_the_end(raw, gid, lines):
    """A replayed roll appended under the next version."""
    raw.copy_row(gid, seqs_of(lines, "DiceRolled")[-1], len(lines) + 1)
    return len(lines) + 1


def insert_a_copy_in_the_middle(raw, gid, lines):
    """A copy of an earlier roll slipped in before a VPScored, later events renumbered."""
    k = seqs_of(lines, "VPScored")[0]
    raw.shift(gid, k, 1)
    raw.copy_row(gid, seqs_of(lines, "DiceRolled")[0], k)
    return k


def swap_two_rolls(raw, gid, lines):
    a, b = seqs_of(lines, "DiceRolled")[:2]
    sa, sb = raw.state(gid, a), raw.state(gid, b)
    raw.set_state(gid, a, sb)
    raw.set_state(gid, b, sa)
    return a


def swap_two_adjacent_events(raw, gid, lines):
    """The state of an OrderAccepted and of its VPScored outcome exchanged."""
    k = seqs_of(lines, "VPScored")[0] - 1
    sa, sb = raw.state(gid, k), raw.state(gid, k + 1)
    raw.set_state(gid, k, sb)
    raw.set_state(gid, k + 1, sa)
    return k


def move_a_roll_to_the_end(raw, gid, lines):
    """Reordered rows: the first roll taken out and appended after the last event, the events
    after it renumbered down to close the gap."""
    k, last = seqs_of(lines, "DiceRolled")[0], len(lines)
    raw.copy_row(gid, k, last + 1)
    raw.delete(gid, k)
    raw.shift(gid, k + 1, -1)
    return k


TAMPERS = [change_die_value, change_vp_total, change_order_and_rehash_it,
           forge_die_and_rewrite_the_whole_chain, delete_a_middle_event, delete_the_first_event,
           insert_a_copy_at_the_end, insert_a_copy_in_the_middle, swap_two_rolls,
           swap_two_adjacent_events, move_a_roll_to_the_end]


@pytest.fixture(params=TAMPERS, ids=[t.__name__ for t in TAMPERS])
def tampered(request, app, store_config):
    """(config, game id, intact export, seq that must be named first) after tampering by SQL."""
    gid = played_game(app)
    intact = export_text(app, gid)
    assert app.check_integrity(gid).ok, "the game must verify before it is tampered with"
    with RawStore(store_config) as raw:
        before = raw.events(gid)
        expected = request.param(raw, gid, [json.loads(t) for t in intact])
        assert raw.events(gid) != before, "the tamper changed nothing in the store"
    return store_config, gid, intact, expected


# ------------------------------------------------------------------------------------ tests --
def test_check_integrity_on_a_fresh_app_names_the_first_tampered_seq(tampered):
    config, gid, intact, expected = tampered
    fresh = Warlog(config)
    try:
        report = fresh.check_integrity(gid)
    finally:
        fresh.close()
    assert not report.ok, "tampering went unnoticed"
    assert report.failures[0][0] == expected, report.summary()


def test_verify_text_of_the_tampered_export_names_the_same_line(tampered):
    config, gid, intact, expected = tampered
    fresh = Warlog(config)
    try:
        text = export_text(fresh, gid)
        stored_report = fresh.check_integrity(gid)
    finally:
        fresh.close()
    assert text != intact
    report, _ = verify_text(text)
    assert not report.ok
    assert report.failures[0][0] == expected == stored_report.failures[0][0], report.summary()


def test_import_of_the_tampered_export_is_refused_naming_the_line(tampered, tmp_path):
    config, gid, intact, expected = tampered
    fresh = Warlog(config)
    try:
        text = export_text(fresh, gid)
    finally:
        fresh.close()
    with store_like(config, tmp_path) as other_config:
        other = make_app(other_config)
        try:
            with pytest.raises(IntegrityFailure) as failure:
                other.import_lines(text)
            assert failure.value.seq == expected
            assert f"line {expected}:" in str(failure.value)
            with pytest.raises(GameNotFound):  # nothing of it was stored
                other.lines(gid)
        finally:
            other.close()


def test_a_forged_die_with_a_rewritten_chain_is_caught_by_the_revealed_seed_alone(app, store_config):
    gid = played_game(app)
    lines = [json.loads(t) for t in export_text(app, gid)]
    with RawStore(store_config) as raw:
        k = forge_die_and_rewrite_the_whole_chain(raw, gid, lines)
    fresh = Warlog(store_config)
    try:
        report = fresh.check_integrity(gid)
    finally:
        fresh.close()
    assert [n for n, _ in report.failures] == [k], report.summary()
    assert "revealed seed gives" in report.failures[0][1]


def test_truncating_the_tail_changes_the_chain_head_the_players_hold(app, store_config):
    """The chain alone cannot show that its last events were cut off: a report stays OK. What
    gives it away is the chain head every command returned to the players."""
    gid = played_game(app)
    published = app.submit_order(gid, "Blue", "last", {"kind": "note", "text": "final"}).chain_head
    with RawStore(store_config) as raw:
        raw.delete(gid, raw.versions(gid)[-1])
    fresh = Warlog(store_config)
    try:
        report = fresh.check_integrity(gid)
    finally:
        fresh.close()
    assert report.ok, report.summary()
    assert report.chain_head != published


@pytest.mark.parametrize("garbage", [b"not json{", b'{"x": 1}'], ids=["not_json", "not_an_event"])
def test_check_integrity_reports_an_undecodable_stored_event_as_a_failure(app, store_config, garbage):
    gid = played_game(app)
    k = seqs_of([json.loads(t) for t in export_text(app, gid)], "VPScored")[0]
    with RawStore(store_config) as raw:
        raw.set_state(gid, k, garbage)
    fresh = Warlog(store_config)
    try:
        report = fresh.check_integrity(gid)
    finally:
        fresh.close()
    assert not report.ok
    assert report.failures[0][0] == k, report.summary()
    assert "cannot be decoded" in report.failures[0][1]


# ------------------------------------------------------------ a damaged log stops the game --
NOTE = {"kind": "note", "text": "after the tamper"}
# The tampers a load finds by itself: all but a forged die whose chain was rewritten, which only
# the revealed seed gives away (check_integrity, below).
FOUND_BY_A_LOAD = [t for t in TAMPERS if t is not forge_die_and_rewrite_the_whole_chain]


def fresh_check(config, gid: str):
    """check_integrity in another process, as the integrity endpoint or ``warlog check`` runs it."""
    checker = Warlog(config)
    try:
        return checker.check_integrity(gid)
    finally:
        checker.close()


def refused(app: Warlog, gid: str, order_id: str = "after") -> DamagedLog:
    with pytest.raises(DamagedLog) as failure:
        app.submit_order(gid, "Blue", order_id, NOTE)
    return failure.value


def refused_by_a_load(config, gid: str) -> DamagedLog:
    """The order refused by another process, which loads the game from the store."""
    loader = Warlog(config)
    try:
        return refused(loader, gid)
    finally:
        loader.close()


@pytest.mark.parametrize("tamper", FOUND_BY_A_LOAD, ids=[t.__name__ for t in FOUND_BY_A_LOAD])
def test_an_order_on_a_tampered_game_is_refused_naming_the_first_bad_line(app, store_config, tamper):
    """A process that loads the game from the store finds the damage (the load verifies the
    chain it reads) and refuses the order, naming the line; the damage is recorded, so every
    later command is refused in every process, the one holding the game in memory too; nothing
    is recorded."""
    gid = played_game(app)
    with RawStore(store_config) as raw:
        expected = tamper(raw, gid, [json.loads(t) for t in export_text(app, gid)])
        rows = raw.events(gid)
        failure = refused_by_a_load(store_config, gid)
        assert failure.seq == expected and f"line {expected}:" in str(failure)
        assert refused(app, gid, "again").seq == expected
        with pytest.raises(DamagedLog):
            app.join(gid, "Red", "someone")
        assert raw.events(gid) == rows, "a command on a damaged game recorded something"
    assert app.damage.of(gid).open[0].seq == expected


def test_a_damage_only_a_full_check_finds_stops_the_game_once_found(app, store_config):
    """A forged die with a rewritten chain loads as a sound chain; once the integrity check
    (``warlog check``, the integrity endpoint) finds it, in any process, no order is taken."""
    gid = played_game(app)
    with RawStore(store_config) as raw:
        k = forge_die_and_rewrite_the_whole_chain(raw, gid, [json.loads(t) for t in export_text(app, gid)])
    assert not fresh_check(store_config, gid).ok
    assert refused(app, gid).seq == k


def test_an_operator_accepts_the_damage_and_the_game_plays_on_until_another_line_fails(app, store_config):
    gid = played_game(app)
    lines = [json.loads(t) for t in export_text(app, gid)]
    with RawStore(store_config) as raw:
        k = change_die_value(raw, gid, lines)
    assert refused_by_a_load(store_config, gid).seq == k
    with pytest.raises(IntegrityFailure):
        app.accept_damage(gid, "  ")  # a decision needs its reason
    damage = app.accept_damage(gid, "the players agreed the stored face stands")
    assert [(d.seq, d.reason) for d in damage.lines] == [(k, "the players agreed the stored face stands")]
    assert not damage.open and damage.lines[0].accepted_at
    result = app.submit_order(gid, "Blue", "after", NOTE)
    assert result.version == len(lines) + 1
    report = app.check_integrity(gid)
    assert {n for n, _ in report.failures} == {k}, "the log still fails verification at the accepted line"
    fresh = Warlog(store_config)  # another process loads the game: the accepted line does not stop it
    try:
        fresh.submit_order(gid, "Red", "after-2", NOTE)
    finally:
        fresh.close()
    # A change at another line stops the game again once the integrity check finds it (a load that
    # starts from a snapshot taken after that line would not read it again).
    with RawStore(store_config) as raw:
        other = change_vp_total(raw, gid, lines)
    assert {n for n, _ in fresh_check(store_config, gid).failures} == {k, other}
    assert refused(app, gid, "after-3").seq == other
    assert [d.seq for d in app.damage.of(gid).open] == [other]


def test_restored_rows_verify_again_and_the_recorded_damage_waits_for_the_operator(app, store_config):
    gid = played_game(app)
    lines = [json.loads(t) for t in export_text(app, gid)]
    with RawStore(store_config) as raw:
        k = seqs_of(lines, "DiceRolled")[0]
        original = raw.state(gid, k)
        change_die_value(raw, gid, lines)
        assert refused_by_a_load(store_config, gid).seq == k
        raw.set_state(gid, k, original)  # the operator restores the row from a backup
    assert app.check_integrity(gid).ok
    assert refused(app, gid, "still").seq == k, "found damage is lifted by an operator's decision only"
    app.accept_damage(gid, "row restored from the backup of 02:00")
    assert app.submit_order(gid, "Blue", "after", NOTE).version == len(lines) + 1


def test_accepting_a_log_that_no_longer_loads_leaves_the_game_read_only(app, store_config):
    """The check that comes with accepting drops this process's copy of the game: its next order
    loads it from the store, which fails at the missing line."""
    gid = played_game(app)
    with RawStore(store_config) as raw:
        k = delete_a_middle_event(raw, gid, [json.loads(t) for t in export_text(app, gid)])
    app.accept_damage(gid, "kept for the record")
    assert refused(app, gid).seq == k


# ---------------------------------------------------------------------------- intact games --
def test_importing_an_intact_export_into_a_fresh_store_gives_an_identical_export(app, store_config, tmp_path):
    gid = played_game(app)
    text = export_text(app, gid)
    with store_like(store_config, tmp_path) as other_config:
        other = make_app(other_config)
        try:
            assert other.import_lines(text) == gid
            again = export_text(other, gid)
            assert "\n".join(again).encode() == "\n".join(text).encode()
            assert other.check_integrity(gid).ok
            with pytest.raises(Conflict):
                other.import_lines(text)
            assert export_text(other, gid) == text, "a refused import changed the stored game"
        finally:
            other.close()


def test_importing_a_game_into_the_store_that_holds_it_is_a_conflict(app):
    gid = played_game(app)
    text = export_text(app, gid)
    with pytest.raises(Conflict):
        app.import_lines(text)
    assert export_text(app, gid) == text


def test_an_export_moves_between_sqlite_and_postgres_byte_for_byte(sqlite_config, postgres_config):
    source, target = make_app(sqlite_config), make_app(postgres_config)
    try:
        gid = played_game(source)
        text = export_text(source, gid)
        target.import_lines(text)
        assert export_text(target, gid) == text
        back_gid = played_game(target)
        back = export_text(target, back_gid)
        source.import_lines(back)
        assert export_text(source, back_gid) == back
        assert hashlib.sha256("\n".join(back).encode()).hexdigest() == \
            hashlib.sha256("\n".join(export_text(source, back_gid)).encode()).hexdigest()
    finally:
        source.close()
        target.close()
