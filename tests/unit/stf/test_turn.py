"""The turn (STF 5.1, 5.2, 6.7; data/sequence.json and data/declared.json), the Player's answers
to pending decisions, the end, and the readable lines (narrate.py)."""

from __future__ import annotations

import copy
import json

import pytest

from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.stf import turn
from domain.rulesets.stf.rules import DATA, HOOKS, STEPS, TURN
from domain.rulesets.toolkit.data import DataError
from domain.rulesets.toolkit.engine import Ctx
from tests.unit.stf.helpers import FixedDice, NoDice, R, at_phase, events_of, initial, names, pending, play, run_step

SEQ = DATA.read("sequence.json")
DECLARED = DATA.read("declared.json")["declarable"]


def in_turn(phase: str, turn_: int = 1, **vp: int) -> dict:
    st = at_phase(initial(), phase, turn=turn_)
    st["vp"] = {"Player": vp.get("player", 0), "system": vp.get("system", 0)}
    return st


def asked_random_event(turn_: int = 2) -> tuple[dict, dict]:
    """The Random Events phase of ``turn_`` ended: the state waiting for the declaration, and it."""
    _, st = play(in_turn("Random Events", turn_), {"kind": "end_phase"})
    return st, pending(st)


def asked_alone(turn_: int = 2) -> tuple[dict, dict]:
    """The random_events step alone asking the Player (answering it runs that step only)."""
    _, st = run_step(in_turn("Random Events", turn_), "random_events")
    return st, pending(st)


# ---- STF 6.7: the Player goes first; end_phase; the advance step --------------------------------
def test_stf_6_7_the_player_goes_first_in_each_phase_and_the_system_never_orders():
    for phase in TURN:
        st = in_turn(phase)
        assert R.actors(st) == ["Player"]
        assert {"kind": "end_phase", "title": f"end the {phase} phase", "rule": "STF 6.7"} in R.legal_orders(st, "Player")
        assert R.legal_orders(st, "system") == []
    with pytest.raises(RuleViolation) as refused:
        R.decide(in_turn("Movement"), "system", {"kind": "end_phase"}, NoDice())
    assert refused.value.rule == "STF 6.7"


def test_stf_6_7_end_phase_runs_the_gamesystem_steps_of_the_phase_in_order_then_advance():
    """The Random Events phase: its first step asks the Player (STF 5.1) with the rest of the
    phase's steps, in sequence.json's order, and the advance step under it, kept to resume."""
    st, d = asked_random_event()
    steps = [f["step"] for f in d["context"]["stack"]]
    assert steps[::-1] == [*SEQ["turn"][0]["system"], "advance"]
    assert st["phase"] == "Random Events"  # the phase is not over until its steps are


def test_stf_6_7_a_phase_without_gamesystem_steps_advances_at_once_to_the_next_phase():
    assert SEQ["turn"][3] == {**SEQ["turn"][3], "phase": "Patrol", "system": []}
    out, st = play(in_turn("Patrol", 4), {"kind": "end_phase"})
    assert names(out) == ["PhaseAdvanced"]
    assert events_of(out, "PhaseAdvanced") == [{"turn": 4, "phase": "Strike", "rule": "STF 10.3"}]
    assert (st["turn"], st["phase"]) == (4, "Strike")


def test_stf_6_7_orders_of_another_phase_are_refused_naming_the_rule():
    for phase in ("Campaign", "Forces", "Deployment"):
        with pytest.raises(RuleViolation) as refused:
            play(at_phase(initial(), phase, turn=0), {"kind": "end_phase"})
        assert refused.value.rule == "STF 6.7" and f"not in the {phase} phase" in str(refused.value)
        assert all(o["kind"] != "end_phase" for o in R.legal_orders(at_phase(initial(), phase, turn=0), "Player"))


def test_stf_6_7_an_unknown_kind_is_malformed_naming_the_rule_and_field():
    with pytest.raises(InvalidOrder) as refused:
        play(in_turn("Movement"), {"kind": "teleport"})
    assert refused.value.rule == "STF 6.7" and refused.value.field == "kind"


@pytest.mark.parametrize("at", range(len(TURN) - 1))
def test_stf_6_7_advance_goes_to_the_next_phase_of_the_turn_with_its_rule(at):
    out, st = run_step(in_turn(TURN[at], 5), "advance")
    nxt = SEQ["turn"][at + 1]
    assert names(out) == ["PhaseAdvanced"]
    assert events_of(out, "PhaseAdvanced")[0] == {"turn": 5, "phase": nxt["phase"], "rule": nxt["rule"]}
    assert (st["turn"], st["phase"]) == (5, nxt["phase"])


def test_stf_6_7_advance_after_the_last_phase_begins_the_next_turn_and_its_dice_epoch():
    dice = FixedDice()
    out, st = run_step(in_turn("Terminal", 3), "advance", dice)
    assert events_of(out, "TurnAdvanced") == [{"turn": 4, "phase": "Random Events", "rule": "STF 6.7"}]
    assert (st["turn"], st["phase"]) == (4, "Random Events") and dice.epochs_closed == 1


def test_stf_6_7_start_turn_one_ends_the_set_up_and_reveals_dice_epoch_0():
    dice = FixedDice()
    ctx = Ctx(at_phase(initial(), "Deployment", turn=0), dice, HOOKS)
    turn.start_turn_one(ctx)
    assert names(ctx.out) == ["TurnAdvanced"] and dice.epochs_closed == 1
    assert (ctx.state["turn"], ctx.state["phase"]) == (1, "Random Events")


# ---- the end (data/sequence.json: length and victory levels, provisional) ------------------------
def test_the_campaign_ends_after_the_last_phase_of_the_last_turn_by_net_vp():
    last = SEQ["length"]["turns"]
    out, st = run_step(in_turn("Terminal", last, player=25, system=3), "advance", FixedDice())
    assert names(out) == ["GameEnded"]
    assert events_of(out, "GameEnded")[0] == {
        "winner": "Player", "level": "decisive", "rule": "STF 12.4",
        "reason": f"the campaign's {last} turns are played; net VP +22"}
    assert st["ended"]["winner"] == "Player"
    assert R.legal_orders(st, "Player") == [] and R.actors(st) == []
    # one turn earlier, the campaign goes on
    out, _ = run_step(in_turn("Terminal", last - 1, player=25), "advance", FixedDice())
    assert names(out) == ["TurnAdvanced"]


@pytest.mark.parametrize("player,system,winner,level", [
    (20, 0, "Player", "decisive"), (19, 0, "Player", "marginal"), (5, 0, "Player", "marginal"),
    (4, 0, None, "draw"), (0, 4, None, "draw"), (0, 5, "system", "marginal"), (0, 19, "system", "marginal"),
    (0, 20, "system", "decisive"), (3, 60, "system", "decisive"),
])
def test_stf_12_4_the_victory_level_is_read_off_the_net_vp_the_systems_losses_less_the_players(
        player, system, winner, level):
    out, _ = run_step(in_turn("Terminal", SEQ["length"]["turns"], player=player, system=system), "advance",
                      FixedDice())
    ended = events_of(out, "GameEnded")[0]
    assert (ended["winner"], ended["level"]) == (winner, level)
    assert ended["reason"].endswith(f"net VP {player - system:+d}")


# ---- STF 5.1, 5.2: random events -----------------------------------------------------------------
def test_stf_5_1_the_player_declares_the_base_games_random_event_each_turn():
    st, d = asked_random_event(turn_=2)
    spec = DECLARED["random_events"]
    assert d["seat"] == "Player" and d["kind"] == "declare" and d["rule"] == "STF 5.1"
    assert d["options"]["choices"] == spec["choices"] and d["options"]["what"] == "random_events"
    assert "Turn 2" in d["prompt"]
    assert R.actors(st) == ["Player"]
    assert R.legal_orders(st, "Player") == [{"kind": "declare", "decision": d["id"], "value": c,
                                             "title": f"declare: {c}", "rule": "STF 5.1"} for c in spec["choices"]]


def test_stf_5_1_a_squall_is_recorded_as_declared_and_the_gamesystem_keeps_its_movement():
    st, d = asked_alone()
    out, st2 = play(st, {"kind": "declare", "decision": d["id"], "value": "squall"})
    assert names(out)[:2] == ["DecisionResolved", "ResultDeclared"]
    declared = events_of(out, "ResultDeclared")[0]
    assert declared == {"seat": "Player", "rule": "STF 5.1", "stands_for": DECLARED["random_events"]["stands_for"],
                        "what": DECLARED["random_events"]["what"], "value": "squall", "decision": d["id"]}
    assert "CampaignFixed" not in names(out) and not turn.command_control_lost(st2)


def test_stf_5_2_a_gamesystem_command_control_loss_sets_the_one_hex_flag_for_this_turn():
    st, d = asked_alone(turn_=3)
    out, st = play(st, {"kind": "declare", "decision": d["id"], "value": "GameSystem command control loss"})
    assert events_of(out, "CampaignFixed") == [{"key": "system_ccl_turn", "value": 3, "rule": "STF 5.2"}]
    assert st["campaign"]["system_ccl_turn"] == 3 and turn.command_control_lost(st)
    assert turn.command_control_lost(at_phase(st, "Movement", turn=3))


def test_stf_5_2_the_flag_lasts_one_turn_only():
    st = in_turn("Terminal", 3)
    st["campaign"]["system_ccl_turn"] = 3
    assert turn.command_control_lost(st)
    _, st = run_step(st, "advance", FixedDice())
    assert st["turn"] == 4 and not turn.command_control_lost(st)
    # a Player's command control loss is the base game's (STF 5.1): no GameSystem flag
    st, d = asked_alone(turn_=4)
    out, st = play(st, {"kind": "declare", "decision": d["id"], "value": "Player command control loss"})
    assert "CampaignFixed" not in names(out) and not turn.command_control_lost(st)


# ---- pending decisions: refusals, declare and decide ---------------------------------------------
def test_while_a_decision_is_pending_every_other_order_is_refused_naming_its_rule():
    st, d = asked_random_event()
    with pytest.raises(RuleViolation) as refused:
        play(st, {"kind": "end_phase"})
    assert refused.value.rule == "STF 5.1" and "answer the pending decision first" in str(refused.value)
    assert all(o["kind"] == "declare" for o in R.legal_orders(st, "Player"))


def test_declare_refuses_a_wrong_decision_id_a_wrong_kind_and_a_value_out_of_range_naming_the_rule():
    st, d = asked_random_event()
    with pytest.raises(InvalidOrder) as wrong_id:
        play(st, {"kind": "declare", "decision": "declare-99", "value": "squall"})
    assert wrong_id.value.rule == "STF 5.1" and wrong_id.value.field == "decision"
    with pytest.raises(RuleViolation) as wrong_kind:
        play(st, {"kind": "decide", "decision": d["id"], "choice": "squall"})
    assert wrong_kind.value.rule == "STF 5.1" and "'declare' order" in str(wrong_kind.value)
    with pytest.raises(RuleViolation) as out_of_range:
        play(st, {"kind": "declare", "decision": d["id"], "value": "earthquake"})
    assert out_of_range.value.rule == "STF 5.1" and "earthquake" in str(out_of_range.value)
    assert "Random Events Table" in str(out_of_range.value)  # says what the value stands for


def test_an_answer_with_no_decision_pending_is_refused():
    for order in ({"kind": "declare", "decision": "declare-1", "value": "none"},
                  {"kind": "decide", "decision": "x-1", "choice": "a"}):
        with pytest.raises(RuleViolation) as refused:
            play(in_turn("Movement"), order)
        assert refused.value.rule == "STF 6.7" and "no decision is pending" in str(refused.value)


def with_choice_pending(phase: str = "Strike") -> dict:
    """A built state waiting for the Player's choice of a GameSystem procedure (as a step asks with
    ``ctx.ask``), whose stack resumes with the advance step."""
    st = in_turn(phase, 2)
    st["decisions"] = 4
    st["pending"] = [{"id": "target-4", "seat": "Player", "kind": "target", "rule": "STF 10.4",
                      "prompt": "which task force?", "options": {"choices": ["P1", "P2"]},
                      "context": {"stack": [{"step": "advance"}]}}]
    return st


def test_decide_takes_one_of_the_listed_choices_and_resumes_the_asking_procedure():
    st = with_choice_pending()
    assert R.legal_orders(st, "Player") == [{"kind": "decide", "decision": "target-4", "choice": c}
                                            for c in ("P1", "P2")]
    out, st2 = play(st, {"kind": "decide", "decision": "target-4", "choice": "P2"})
    assert names(out) == ["DecisionResolved", "PhaseAdvanced"]
    assert events_of(out, "DecisionResolved")[0] == {"decision_id": "target-4", "seat": "Player", "choice": "P2"}
    assert st2["pending"] == [] and st2["phase"] == "Combat"


def test_decide_refuses_a_wrong_decision_id_and_a_wrong_kind_naming_the_rule():
    st = with_choice_pending()
    with pytest.raises(InvalidOrder) as wrong_id:
        play(st, {"kind": "decide", "decision": "target-3", "choice": "P1"})
    assert wrong_id.value.rule == "STF 10.4" and wrong_id.value.field == "decision"
    with pytest.raises(RuleViolation) as wrong_kind:
        play(st, {"kind": "declare", "decision": "target-4", "value": "P1"})
    assert wrong_kind.value.rule == "STF 10.4" and "'decide' order" in str(wrong_kind.value)


def test_decide_hands_the_choice_to_the_asking_step_which_judges_it():
    """The choices a decision lists are those offered; the asking step may take others (a pair in
    either order) and refuses what it does not take, naming its rule: a value out of range of a
    declared.json entry is refused by ``declare`` itself (above)."""
    st = with_choice_pending()
    st["pending"][0]["context"]["stack"] = [{"step": "random_events"}]
    out, st2 = play(st, {"kind": "decide", "decision": "target-4", "choice": "GameSystem command control loss"})
    assert names(out) == ["DecisionResolved", "CampaignFixed"]  # random_events read the answer handed to it
    assert st2["campaign"]["system_ccl_turn"] == 2


# ---- the data files ------------------------------------------------------------------------------
def test_sequence_json_names_the_phases_stf_names_with_their_rules_and_the_player_first():
    assert [p["phase"] for p in SEQ["set_up"]] == ["Campaign", "Forces", "Deployment"]
    assert [(p["phase"], p["rule"]) for p in SEQ["turn"]] == [
        ("Random Events", "STF 5.1"), ("Group Mode", "STF 8.14"), ("Movement", "STF 7.1"),
        ("Patrol", "STF 2.6.1"), ("Strike", "STF 10.3"), ("Combat", "STF 11.1"), ("Terminal", "STF 8.11")]
    assert SEQ["turn"][0]["system"][0] == "random_events"  # STF 5.1 before the reinforcements (6.4)
    assert "reinforcements" in SEQ["turn"][0]["system"]  # STF 6.4: in the Random Events Phase
    assert "lbna_strike" in SEQ["turn"][4]["system"]  # STF 2.6.3: in the Strike Segment
    assert {"intelligence_degradation", "retirement"} <= set(SEQ["turn"][6]["system"])  # STF 8.11, 12.5
    assert SEQ["victory"]["rule"] == "STF 12.4"


def test_sequence_json_marks_the_length_the_levels_and_the_order_of_phases_provisional():
    guessed = {(g.file, g.entry, g.field) for g in DATA.provisional()}
    assert {("sequence.json", "turn", None), ("sequence.json", "length", "turns"),
            ("sequence.json", "victory", "levels")} <= guessed


@pytest.mark.parametrize("spoil,message", [
    (lambda s: s["length"].update(turns=0), "at least one turn"),
    (lambda s: s["victory"]["levels"].reverse(), "highest net VP down"),
    (lambda s: s["victory"]["levels"][0].update(winner="Soviet"), "'winner'"),
    (lambda s: s["victory"]["levels"].pop(), "the last level takes any net VP"),
    (lambda s: s["turn"].append(dict(s["turn"][0])), "named twice"),
    (lambda s: s["turn"][1].update(system="group_modes"), "wrong type"),
])
def test_a_bad_correction_of_sequence_json_is_refused_naming_the_entry(spoil, message):
    doc = copy.deepcopy(json.loads(json.dumps(SEQ)))
    spoil(doc)
    with pytest.raises(DataError) as refused:
        turn._check_sequence(doc)
    assert message in str(refused.value) and "sequence.json" in str(refused.value)


def test_declared_json_holds_only_what_the_base_game_decides_each_with_its_stf_rule():
    spec = DECLARED["random_events"]
    assert spec["rule"] == "STF 5.1" and spec["type"] == "choice"
    assert {"none", "squall", "Player command control loss", "GameSystem command control loss"} == set(spec["choices"])
    for key, entry in DECLARED.items():
        assert entry["rule"].startswith("STF ") and entry["stands_for"], key
        assert key in turn.DECLARABLE


def test_every_gamesystem_step_of_the_sequence_is_registered():
    assert [s for p in SEQ["turn"] for s in p["system"] if s not in STEPS] == []
    assert "advance" in STEPS and "random_events" in STEPS


# ---- narration (narrate.py, through the ruleset's describe hook) ---------------------------------
@pytest.mark.parametrize("event_type,data,line", [
    ("CampaignFixed", {"key": "mission", "value": "Battle", "rule": "STF 1.2"}, "Campaign: mission Battle (STF 1.2)"),
    ("CampaignFixed", {"key": "commitment", "value": {"Player": {"points": 21, "carriers": 1}, "system": 52},
                       "rule": "STF 1.5"}, "Campaign: commitment limits Player 21/1, GameSystem 52 (STF 1.5)"),
    ("CampaignFixed", {"key": "ground_aviation", "value": {"Player": 2, "system": 0}, "rule": "STF 2.1"},
     "Campaign: ground aviation squadrons Player 2, GameSystem 0 (STF 2.1)"),
    ("CampaignFixed", {"key": "system_ccl_turn", "value": 3, "rule": "STF 5.2"},
     "GameSystem command control loss: its task forces and subrons move at most one hex in turn 3 (STF 5.2)"),
    ("GroupPlaced", {"group": {"id": "TF3", "owner": "system", "kind": "tf", "hex": "1207", "emcon": True,
                               "intel": "unknown"}, "rule": "STF 6.2"},
     "GameSystem task force TF3 placed in hex 1207 (intel unknown, EMCON) (STF 6.2)"),
    ("GroupPlaced", {"group": {"id": "SR2", "owner": "system", "kind": "subron", "hex": None}, "rule": "STF 6.2"},
     "GameSystem subron SR2 placed off the map (STF 6.2)"),
    ("GroupMoved", {"group": "TF3", "path": ["1207", "1208"], "rule": "STF 7.5", "why": "towards P1, 4 ships"},
     "TF3 moved through hexes 1207 → 1208 (STF 7.5): towards P1, 4 ships"),
    ("GroupMoved", {"group": "TF3", "path": [], "rule": "STF 7.8", "why": "5 hexes from P1: battle"},
     "TF3 stays where it is (STF 7.8): 5 hexes from P1: battle"),
    ("GroupChanged", {"group": "TF3", "changes": {"intel": "accurate", "chit": "Commodore"}, "rule": "STF 8.6",
                      "why": "rolled 3"}, "TF3: intel accurate, chit Commodore (STF 8.6): rolled 3"),
    ("GroupRemoved", {"group": "SR1", "status": "false contact", "rule": "STF 8.4", "why": "rolled even"},
     "SR1 removed: false contact (STF 8.4): rolled even"),
    ("UnitsAssigned", {"group": "TF3", "units": {"s1": {"name": "Kirov", "class": "CG"},
                                                 "s2": {"name": "Udaloy", "class": "DD"}},
                       "points": 12, "rule": "STF 8.7", "why": "Commodore TF, roll 7"},
     "CG Kirov, DD Udaloy join TF3 for 12 points (STF 8.7): Commodore TF, roll 7"),
    ("UnitChanged", {"unit": "Kirov", "changes": {"hits": 2, "sunk": True}, "rule": "STF 11.2", "why": "declared"},
     "Kirov: hits 2, sunk yes (STF 11.2): declared"),
    ("SystemActs", {"what": "air strike", "detail": {"strike": 2, "escort": 1}, "rule": "STF 10.10",
                    "why": "Air Attack Table, roll 4"},
     "GameSystem: air strike — strike 2, escort 1 (STF 10.10): Air Attack Table, roll 4"),
    ("PoolSet", {"pool": {"a": {}, "b": {}, "c": {}}, "rule": "STF 1.7"}, "Countermix set: 3 counters to draw from (STF 1.7)"),
    ("OrderAccepted", {"seat": "Player", "order": {"kind": "end_phase"}},
     "Player ends its part of the phase; the GameSystem's follows (STF 6.7)"),
    ("OrderAccepted", {"seat": "Player", "order": {"kind": "declare", "decision": "declare-2", "value": "squall"}},
     "Player declares squall for declare-2"),
])
def test_narration_gives_each_stf_event_its_line(event_type, data, line):
    assert R.describe(event_type, data) == line


def test_narration_never_raises_on_missing_fields_and_leaves_generic_events_to_the_generic_lines():
    for event_type in ("CampaignFixed", "GroupPlaced", "GroupMoved", "GroupChanged", "GroupRemoved",
                       "UnitsAssigned", "UnitChanged", "SystemActs", "PoolSet"):
        assert isinstance(R.describe(event_type, {}), str)
        assert isinstance(R.describe(event_type, {"group": None, "units": None, "changes": None}), str)
    assert R.describe("PhaseAdvanced", {"turn": 1, "phase": "Movement", "rule": "STF 7.1"}) is None
    assert R.describe("ResultDeclared", {"what": "x"}) is None
    assert R.describe("OrderAccepted", {"seat": "Player", "order": {"kind": "campaign"}}) is None
    assert R.describe("OrderAccepted", {}) is None


def test_narration_through_the_projection_names_the_rule_and_why():
    from projections.narrate import describe

    line = {"type": "GroupRemoved", "data": {"group": "TF2", "status": "retired", "rule": "STF 12.9",
                                             "why": "reached Megahex 63"}}
    assert describe(line, R) == "TF2 removed: retired (STF 12.9): reached Megahex 63"


def test_an_stf_event_of_another_part_without_its_own_line_reads_from_its_fields():
    from domain.rulesets.stf import narrate

    assert narrate._plain("PlayerAirAction", {"what": "LBNA patrol", "detail": {"unit": "badger", "megahex": 1},
                                              "rule": "STF 2.6.1"}) == \
        "Player air action: LBNA patrol — unit badger, megahex 1 (STF 2.6.1)"
    assert narrate._plain("LbnaChanged", {"changes": {"used_badger": 1}, "rule": "STF 2.6.1", "why": "a patrol"}) == \
        "Lbna changed: used badger 1 (STF 2.6.1): a patrol"
    assert narrate._plain("Nothing", {}) == "Nothing"
    assert R.describe("NoSuchEventAnywhere", {"rule": "STF 1.1"}) is None  # not an stf event: the generic line


def test_narration_cuts_a_long_detail_of_the_gamesystems_decision_but_keeps_rule_and_why():
    # (an air strike is told whole since stfplay13: the Player flies it from the line; a check is not)
    line = R.describe("SystemActs", {"what": "retirement check", "detail": {f"k{n}": "x" * 10 for n in range(30)},
                                     "rule": "STF 10.3", "why": "in range"})
    assert line.startswith("GameSystem: retirement check — k0 xxxxxxxxxx") and line.endswith("… (STF 10.3): in range")
    assert len(line) < 220


def test_narration_cuts_a_long_list_and_says_an_unknown_side_is_not_yet_known():
    line = R.describe("CampaignFixed", {"key": "player_airbases", "value": [f"b{k}" for k in range(10)], "rule": "STF 2.2"})
    assert line == "Campaign: Player's airbases b0, b1, b2, b3, b4, b5, b6, b7 and 2 more (STF 2.2)"
    assert R.describe("CampaignFixed", {"key": "system_side", "value": None, "rule": "STF 8.8"}) == \
        "Campaign: GameSystem's side not yet known (STF 8.8)"


def test_readable_lines_name_units_by_their_counters_class_and_name():
    from domain.rulesets.stf import forces
    from projections.narrate import describe

    cid, counter = next(iter(forces.COUNTERS.items()))
    assert R.names()[cid] == f"{counter['class']} {counter['name']}"
    assert len(R.names()) == len(forces.COUNTERS)
    line = {"type": "UnitChanged", "data": {"unit": cid, "changes": {"sunk": True}, "rule": "STF 11.1",
                                            "why": "reported by the Player"}}
    assert describe(line, R) == f"{counter['class']} {counter['name']}: sunk yes (STF 11.1): reported by the Player"
