"""Time and order, against the STF text (../shared/rules/003_74ca0e4e298164eb.txt), as an examiner
would: each test plays through the moment a rule should act and the moment after (ending phases
with ``end_phase`` as the Player does, answering what the GameSystem asks), and checks the state
before and after, and which dice are rolled when, for what."""

from __future__ import annotations

from tests.unit.stf.helpers import (FixedDice, add_group, combat_state, events_of, pending, play, pool_of, ship,
                                    system_group)


def finish(st: dict, dice, *, event: str = "none", sunk: dict | None = None) -> tuple[list, dict]:
    """End the Player's part of the phase (STF 6.7) and answer what the GameSystem's steps ask: the
    random event (``event``, STF 5.1), and the base game's combat results (``sunk``: {prompt
    fragment: unit sunk}, else nothing sunk and the combat ended by the base game)."""
    sunk = dict(sunk or {})
    outs, (out, st) = [], play(st, {"kind": "end_phase"}, dice)
    outs += out
    while pending(st):
        d = pending(st)
        if d["kind"] == "declare":
            order = {"kind": "declare", "decision": d["id"], "value": event}
        else:
            hit = next((k for k in sunk if k in d["prompt"]), None)
            choice = {"sunk": sunk.pop(hit)} if hit else (
                {"sunk": None} if "sunk;" in d["prompt"] else {"ended": True})
            order = {"kind": "decide", "decision": d["id"], "choice": choice}
        out, st = play(st, order, dice)
        outs += out
    return outs, st


def acts(out: list, what: str) -> list[dict]:
    return [e for e in events_of(out, "SystemActs") if e["what"] == what]


# ---- STF 7.6, 11.3: a group whose target was sunk earlier in the phase engages the next one ------
def test_stf_11_3_a_group_whose_target_another_group_sank_this_phase_fights_the_player_task_force_left_in_its_hex():
    """7.6: "When within range, a GameSystem task force or subron will attempt to engage in battle";
    11.3: it fires when it has as many ships with A guns as the Player's task force. TF1 and TF2
    both stand in the hex of P1 and P2; TF1's gunnery sinks P1 in the first round. TF2 had picked
    P1 too (5 VP against 4) when the Combat phase began, and the code dropped TF2's combat once P1
    was gone, though P2 was still in its hex: the target was fixed before TF1's results were in."""
    st = combat_state("Combat")
    add_group(st, "P1", "Player", "1405", {"p1": ship("DD", 5, nation="US", gun="A")})
    add_group(st, "P2", "Player", "1405", {"p2": ship("DD", 4, nation="US", gun="A")})
    add_group(st, "TF1", "system", "1405", {"k1": ship("CG", 8, gun="A")})
    add_group(st, "TF2", "system", "1405", {"k2": ship("CG", 8, gun="A")})
    out, after = finish(st, FixedDice(default=1), sunk={"TF1's gunnery round 1": "p1"})
    fired = [(e["detail"]["group"], e["detail"]["target_group"]) for e in acts(out, "gunnery") if e["detail"]["fire"]]
    assert fired == [("TF1", "P1"), ("TF2", "P2")]
    assert after["units"]["p1"]["sunk"] is True and after["phase"] == "Terminal"


def test_stf_11_2_a_group_whose_ssm_target_is_sunk_before_its_salvo_fires_at_the_next_task_force_in_range():
    """11.2: a GameSystem task force "will fire every SSM it can"; 7.6: within range it engages.
    TF1 and TF2 (8 SSM each) are both in range of P1 and P2. TF1's first wave sinks P1's only
    ship; TF2's salvo goes to P2, not nowhere."""
    st = combat_state("Combat")
    add_group(st, "P1", "Player", "1405", {"p1": ship("DD", 5, nation="US")})
    add_group(st, "P2", "Player", "1406", {"p2": ship("DD", 4, nation="US")})
    add_group(st, "TF1", "system", "1505", {"k1": ship("CG", 8, ssm=8, ssm_loads=1)})
    add_group(st, "TF2", "system", "1506", {"k2": ship("CG", 8, ssm=8, ssm_loads=1)})
    out, after = finish(st, FixedDice(default=1), sunk={"TF1's SSM wave 1": "p1"})
    waves = [(e["detail"]["group"], e["detail"]["target_group"]) for e in acts(out, "SSM wave")]
    assert ("TF1", "P1") in waves and ("TF2", "P2") in waves
    assert all(g != "TF2" or t == "P2" for g, t in waves)
