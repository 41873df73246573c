"""Named positions and sandbox forks in the domain (docs/rulesets.md, Positions and sandboxes):
the position files of every ruleset load and are checked, a bad file is refused naming the file,
a game from a position replays from its log whatever the file says later, and a fork starts from
the source's state with nothing else of it."""

from __future__ import annotations

import hashlib
import json
from uuid import UUID

import pytest

from domain import chain
from domain.errors import ForkHidden, InvalidFork, InvalidSetup
from domain.game import Game
from domain.rulesets import find_ruleset, ruleset_names
from domain.rulesets import positions as positions_module
from domain.rulesets.positions import PositionError
from domain.storage import config_from_env
from domain.verify import to_line, verify
from tests.conftest import make_app
from tests.unit.falklands.helpers import initial, play


def seed_for(epoch: int) -> bytes:
    return hashlib.sha256(f"positions-{epoch}".encode()).digest()


def write(tmp_path, name: str, body) -> None:
    (tmp_path / f"{name}.json").write_text(body if isinstance(body, str) else json.dumps(body), encoding="utf-8")


MIDGAME = find_ruleset("proving").position("midgame")


def test_every_position_of_every_ruleset_loads_and_passes_its_rulesets_check():
    found = {name: sorted(find_ruleset(name).positions()) for name in ruleset_names()}
    assert found["falklands"] == ["midgame", "opening"] and found["proving"] == ["midgame"]
    for name in ruleset_names():
        for position in find_ruleset(name).positions().values():
            assert position.title and position.note
            find_ruleset(name).check_position(position.state)


def test_falklands_opening_is_the_state_the_set_up_order_gives_fs_3_3():
    rules = find_ruleset("falklands")
    submarines = {"spartan": "falklands", "splendid": "falklands"}
    _, after = play(initial(), "UK", {"kind": "setup", "submarines": submarines})
    assert rules.position("opening").state == after


@pytest.mark.parametrize("body, says", [
    ("{not json", "not readable JSON"),
    ({"title": "t", "note": "n"}, "exactly title, note and state"),
    ({"title": "", "note": "n", "state": {}}, "'title' is text"),
    ({"title": "t", "note": "n", "state": {**MIDGAME.state, "sides": ["Red", "Green"]}}, "the sides are"),
    ({"title": "t", "note": "n", "state": {k: v for k, v in MIDGAME.state.items() if k != "vp"}}, "lacks 'vp'"),
    ({"title": "t", "note": "n", "state": {**MIDGAME.state, "ended": {"winner": "Red"}}}, "has ended"),
])
def test_a_bad_position_file_is_refused_naming_the_file(tmp_path, body, says):
    write(tmp_path, "broken", body)
    with pytest.raises(PositionError) as refused:
        positions_module.load(tmp_path, find_ruleset("proving").check_position)
    assert f"{tmp_path.name}/broken.json" in str(refused.value) and says in str(refused.value)


def test_a_position_named_against_the_rule_for_names_is_refused(tmp_path):
    write(tmp_path, "Mid Game", {"title": "t", "note": "n", "state": MIDGAME.state})
    with pytest.raises(PositionError, match="Mid Game.json: a position's name"):
        positions_module.load(tmp_path, find_ruleset("proving").check_position)


def test_falklands_refuses_a_position_without_its_order_of_battle():
    state = dict(find_ruleset("falklands").position("opening").state)
    state["units"] = {k: v for k, v in state["units"].items() if k != "hermes"}
    with pytest.raises(ValueError, match="missing: \\['hermes'\\]"):
        find_ruleset("falklands").check_position(state)


def test_a_game_from_a_position_records_it_and_replays_after_the_file_changes(monkeypatch):
    game = Game.create("proving", position="midgame", seed_for=seed_for)
    created, marked = game.pending_events[:2]
    assert created.setup == MIDGAME.state and created.setup is not MIDGAME.state
    assert (marked.position, marked.digest) == ("midgame", chain.digest(MIDGAME.state))
    changed = positions_module.Position("midgame", "t", "n", {**MIDGAME.state, "turn": 9})
    monkeypatch.setitem(find_ruleset("proving").positions(), "midgame", changed)
    replayed = None
    for event in game.pending_events:
        replayed = event.mutate(replayed)
    assert replayed.state["turn"] == 3 and replayed.position == {"position": "midgame", "title": MIDGAME.title}


def test_an_unknown_position_or_one_with_options_is_invalid_setup():
    with pytest.raises(InvalidSetup, match="no position 'nowhere'; its positions: midgame"):
        Game.create("proving", position="nowhere", seed_for=seed_for)
    with pytest.raises(InvalidSetup, match="not both"):
        Game.create("falklands", options={"uk_operations": 6}, position="opening", seed_for=seed_for)


def source_game() -> Game:
    game = Game.create("proving", position="midgame", seed_for=seed_for)
    game.join("Red", "r", "", seed_for)
    game.join("Blue", "b", "", seed_for)
    game.submit("Red", "o1", {"kind": "roll_score"}, seed_for)
    return game


def test_a_fork_takes_the_state_and_seats_and_nothing_else_of_the_source():
    source = source_game()
    fork = Game.fork(source, "Red", seed_for=seed_for)
    assert fork.state == source.state and fork.id != source.id
    assert list(fork.seats) == list(source.seats) and not fork.started  # its own seats, to be joined
    assert fork.dice == {"epoch": 0, "commitment": None, "entropy": "", "nonce": 0}
    assert fork.orders == {} and fork.umpire is None and fork.position is None
    assert fork.sandbox == {"source": str(source.id), "at": source.version, "at_hash": source.chain_head, "by": "Red"}
    assert verify([to_line(e) for e in fork.pending_events]).ok


def test_a_fork_of_an_ended_game_or_of_hidden_state_is_refused_but_the_umpire_may():
    source = source_game()
    source.submit("Blue", "o2", {"kind": "take_marker", "marker": "ambush"}, seed_for)
    with pytest.raises(ForkHidden, match="hidden from Red"):
        Game.fork(source, "Red", seed_for=seed_for)
    with pytest.raises(ForkHidden, match="hidden from spectators"):
        Game.fork(source, None, seed_for=seed_for)
    assert Game.fork(source, "umpire", seed_for=seed_for).state["markers"]["Blue"] == ["ambush"]
    source.concede("Red", seed_for)
    with pytest.raises(InvalidFork, match="ended"):
        Game.fork(source, "umpire", seed_for=seed_for)


def test_order_around_names_the_order_whose_outcome_runs_past_an_event():
    source = source_game()  # the order: events 9 (accepted), 10 (the roll), 11 (the VP)
    assert source.order_around(9) == ("o1", 9, 11) and source.order_around(10) == ("o1", 9, 11)
    assert source.order_around(11) is None and source.order_around(8) is None


def test_a_fork_past_a_snapshot_starts_from_the_state_at_its_event_and_its_export_imports(sqlite_app, tmp_path):
    """On a store that snapshots every 20 events, a fork between snapshots starts from the state a
    replay of the source's first ``at`` events gives; the sandbox's export verifies and imports."""
    source = sqlite_app.create_game("proving", position="midgame").game_id
    for seat in ("Red", "Blue"):
        sqlite_app.join(source, seat, seat.lower())
    for n in range(15):
        sqlite_app.submit_order(source, ("Red", "Blue")[n % 2], f"o{n}", {"kind": "roll_score"})
    game = sqlite_app.get_game(source)
    # the end of an order, between the snapshots at 20 and 40 (not right after one)
    at = next(last for _, last in (game.order_range(f"o{n}") for n in range(15)) if 21 < last < 40)
    replayed = None
    for event in sqlite_app.events.get(UUID(source), lte=at):
        replayed = event.mutate(replayed)
    result = sqlite_app.fork_game(source, at, "Red")
    sandbox = sqlite_app.get_game(result.game_id)
    assert sandbox.state == replayed.state and sandbox.sandbox["at_hash"] == replayed.chain_head
    lines = list(sqlite_app.export(result.game_id))
    other = make_app(config_from_env({"WARLOG_DATA_DIR": str(tmp_path / "other")}))
    try:
        assert other.import_lines(lines) == result.game_id
        assert other.get_game(result.game_id).sandbox["source"] == source
    finally:
        other.close()
