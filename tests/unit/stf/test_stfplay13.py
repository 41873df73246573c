"""A solitaire player's campaign through the CLI (round 13, stfplay13): the report's refusals that
did not say what to type. Built states (tests.unit.stf.helpers)."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from tests.unit.stf.helpers import add_group, combat_state, play, ship

HEX = "1810"


def battle() -> dict:
    st = combat_state()
    add_group(st, "P1", "Player", HEX, {"us-cv-nimitz": ship("CV", 20, name="Nimitz", nation="US",
                                                             air={"L": 6, "M": 6, "H": 3, "EW": 1, "AEW": 1})})
    add_group(st, "TF1", "system", HEX, {
        "sov-cv-minsk": ship("CV", 15, name="Minsk", air={"L": 0, "M": 3, "H": 0, "EW": 0, "AEW": 0},
                             aircraft={"L": None, "M": "Yak-38 Forger", "H": None, "EW": None, "AEW": None}),
        "sov-ff-bditelny": ship("FF", 3, name="Bditelny")})
    return st


def test_stf_11_1_a_report_naming_a_ship_by_its_name_is_told_its_id():
    """STF 11.1: a player reporting the frigate his strike sank as "Bditelny" (the name every line
    of the history gives it) was told "Bditelny is no unit of this game", which it is: the report
    names units by id, and the refusal now says which id that ship has."""
    with pytest.raises(RuleViolation) as e:
        play(battle(), {"kind": "report", "sunk": ["Bditelny"]})
    assert e.value.rule == "STF 11.1"
    assert "sov-ff-bditelny" in str(e.value) and "no unit of this game" not in str(e.value), str(e.value)
    with pytest.raises(RuleViolation, match="no unit of this game"):  # a name no unit has: as before
        play(battle(), {"kind": "report", "sunk": ["Bismarck"]})


def test_stf_11_1_a_squadron_named_by_its_aircraft_is_told_the_carriers_squadrons():
    """STF 11.1 (12.3): 'sov-cv-minsk:Yak-38' (the aircraft the carrier flies) was refused as
    "sov-cv-minsk carries no Yak- squadron": the kind cut at its digits, and no word of what the
    carrier does carry. The refusal now keeps the name whole and lists the carrier's squadrons."""
    with pytest.raises(RuleViolation) as e:
        play(battle(), {"kind": "report", "squadrons_destroyed": ["sov-cv-minsk:Yak-38"]})
    assert e.value.rule == "STF 11.1"
    text = str(e.value)
    assert "Yak-38 squadron" in text and "sov-cv-minsk:M" in text and "Yak-38 Forger" in text, text
    _, st = play(battle(), {"kind": "report", "squadrons_destroyed": ["sov-cv-minsk:M"]})
    assert st["units"]["sov-cv-minsk"]["air_lost"] == ["M"]


def test_stf_10_7_the_gamesystems_air_strike_is_told_whole_in_the_history():
    """STF 10.2, 10.14, 10.15: the GameSystem's air strike is flown by the Player on the base game's
    tactical display from its line: which squadrons, the entry and exit sectors, the CAP left over
    its carriers, the attack and its targets. The line was cut at 160 characters ("…, ew
    us-cv-midway:EW, sho…"), so sectors, CAP and targets were in the event only. It is now told
    whole, as a placement or an SSM wave is."""
    from domain.rulesets.stf import narrate

    detail = {"group": "TF1", "target": "P2", "target_kind": "CV", "megahexes": 5, "nation": "US",
              "table": "1 strike, 1 escort", "strike": ["us-cv-midway:H"], "escort": ["us-cv-saratoga:L"],
              "ew": ["us-cv-midway:EW"], "short": {"strike": 0, "escort": 0}, "entry_sector": 6, "exit_sector": 3,
              "cap": {"strength": 6, "of": 12, "squadrons": ["us-cv-midway:M", "us-cv-saratoga:M"],
                      "aew": ["us-cv-midway:AEW", "us-cv-saratoga:AEW"], "rule": "STF 10.2"},
              "plan": {"attack": "diffusion bombs", "targets": ["sov-cv-baku"], "rule": "STF 10.14"}}
    line = narrate.describe("SystemActs", {"what": "air strike", "detail": detail, "rule": "STF 10.7",
                                           "why": "Precisely identified with a CV"})
    assert "…" not in line, line
    assert "entry sector 6" in line and "exit sector 3" in line and "diffusion bombs" in line \
        and "sov-cv-baku" in line, line


def test_stf_10_7_a_task_force_whose_strike_cannot_fly_does_not_reveal_its_air_strength():
    """STF 10.7 ("Accurate and has a previously revealed air strength"), 8.11, the composition
    tables' +5/+4: a task force's air strength is revealed by the strike it launches. A CV task
    force whose deck is inoperable (12.7) launches none ("no air strike", 10.11), yet it was
    marked "air known: it launched an air strike" first: in play, TF7 (the Saratoga retiring
    under 12.7) was so marked every turn it found a target. It is now marked only when it flies."""
    from tests.unit.stf import test_air as A
    from tests.unit.stf.helpers import FixedDice, NoDice, events_of, run_step

    st = A.precise_cv_state(H=4, L=3)
    st["units"]["kiev"]["flight_deck_inoperable"] = True
    out, st2 = run_step(st, "air_attacks", NoDice())
    assert [e["what"] for e in events_of(out, "SystemActs")] == ["no air strike"]
    assert not any(e["changes"].get("air_known") for e in events_of(out, "GroupChanged")), events_of(out, "GroupChanged")
    assert not st2["groups"]["TF1"].get("air_known")
    st["units"]["kiev"]["flight_deck_inoperable"] = False  # it flies: now its air strength is known
    out, st2 = run_step(st, "air_attacks", FixedDice(6, 1))
    assert st2["groups"]["TF1"].get("air_known") is True


def test_stf_7_1_a_groups_move_is_told_as_the_turn_it_moved_in_not_a_number_of_hexes():
    """STF 7.1: after 'P3 moved through hexes 2918 → 3018 → 3118' the history said "P3: moved 4
    (STF 7.1)" in turn 4: the flag holds the turn, and a player read it as four hexes for a
    task force of speed 3. It now says "moved in turn 4"."""
    from domain.rulesets.stf import narrate

    line = narrate.describe("GroupChanged", {"group": "P3", "changes": {"moved": 4}, "rule": "STF 7.1",
                                             "why": "P3 has moved in turn 4"})
    assert line.startswith("P3: moved in turn 4 (STF 7.1)"), line
    line = narrate.describe("GroupChanged", {"group": "TF1", "changes": {"intel": "accurate", "chit": "Commodore"},
                                             "rule": "STF 8.6"})
    assert line == "TF1: intel accurate, chit Commodore (STF 8.6)", line


def test_stf_11_2_a_waves_answer_naming_the_ship_by_its_name_is_told_its_id():
    """STF 11.2: asked "SR5's SSM wave 1: 2 missiles at sov-cg-kirov …: which unit did it sink?",
    a player answering {"sunk": "Kirov"} was told "Kirov took no part in this", the ship the wave
    was fired at. The refusal now says the answer names it by id, and gives the answer to type."""
    from tests.unit.stf.helpers import FixedDice, pending, run_step
    from tests.unit.stf.test_combat import ssm_battle, missile_tf

    player = {"us-dd-spruance": ship("DD", 4, name="Spruance", nation="US"),
              "us-ff-knox": ship("FF", 3, name="Knox", nation="US")}
    _, st = run_step(ssm_battle(player, missile_tf()), "surface_combat", FixedDice(3))
    with pytest.raises(RuleViolation) as e:
        play(st, {"kind": "decide", "decision": pending(st)["id"], "choice": {"sunk": "Spruance"}})
    assert e.value.rule == "STF 11.2"
    assert "took no part" not in str(e.value) and '{"sunk": "us-dd-spruance"}' in str(e.value), str(e.value)
    with pytest.raises(RuleViolation, match="took no part"):  # a ship the wave was not aimed at: as before
        play(st, {"kind": "decide", "decision": pending(st)["id"], "choice": {"sunk": "Knox"}})


def test_stf_8_7_a_line_names_its_rule_once():
    """STF 8.7: "TF4 removed: false contact (STF 8.7): STF 8.7: an even roll (4): …" - the why
    repeated the rule the line had just named. It is named once; a why citing another rule
    (8.14's reveal, read by 8.6's size die) keeps it."""
    from domain.rulesets.stf import narrate

    line = narrate.describe("GroupRemoved", {"group": "TF4", "status": "false contact", "rule": "STF 8.7",
                                             "why": "STF 8.7: an even roll (4): a false contact, removed from play"})
    assert line == "TF4 removed: false contact (STF 8.7): an even roll (4): a false contact, removed from play", line
    line = narrate.describe("GroupChanged", {"group": "SR3", "changes": {"size": "large"}, "rule": "STF 8.14",
                                             "why": "STF 8.6: a 6 on 1d6, a large force"})
    assert line == "SR3: size large (STF 8.14): STF 8.6: a 6 on 1d6, a large force", line
