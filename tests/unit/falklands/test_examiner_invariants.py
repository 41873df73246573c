"""Invariants of the Falklands Showdown text, checked after every accepted order of seeded
random games (play.candidates), and how a game ends (FS 4.2, 4.5, 4.6, 5.3)."""

from __future__ import annotations

import random
from uuid import UUID

import pytest

from domain.errors import InvalidOrder, RuleViolation
from domain.game import Game
from domain.rulesets.falklands import play
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.data import DATA
from tests.unit.falklands.test_fuzz import seed_for

GAMES = 200
VP_STEPS = {1, 2, 4}  # FS 4.4(1)-(5), Op #2, event 4-5: every award is 1, 2 or 4 VP


def check(state: dict, before: dict, events: list, n: int) -> None:
    units = state["units"]
    # FS 4.1/3.5: the track starts at 8 and moves only by the awards of 4.4, Op #2, Op #10 (4.4(3) anywhere) and 4-5
    for e in events:
        if type(e).__name__ == "VPScored":
            assert abs(e.delta) in VP_STEPS, (n, e.reason, e.delta)
            assert e.rule.startswith(("FS 4.4", "FS 7.1 Op #2", "FS 7.1 Op #10", "FS 11.3 4-5")), (n, e.rule)
    # FS 4.5 / 5.3: the game goes on only while the track is strictly between -5 and +20 and
    # UK operations remain
    ended = state.get("ended")
    vp = state["vp"][S.TRACK]
    if not ended:
        assert -5 < vp < 20, (n, vp)
        assert state["uk_operations_left"] > 0, n
    else:
        rule, winner = ended["rule"], ended["winner"]
        if rule == "FS 4.5":
            assert (vp >= 20 and winner == "AR") or (vp <= -5 and winner == "UK"), (n, vp, winner)
        elif rule == "FS 4.2":
            assert winner == "AR" and state["uk_operations_left"] <= 0, (n, ended)
        elif rule == "FS 4.6":
            assert state["uk_operations_left"] <= 0 and state["control"]["port_stanley"] == "UK", (n, ended)
            assert winner == ("UK" if vp <= 0 else "AR"), (n, vp, winner)
        else:
            raise AssertionError((n, ended))
    for uid, u in units.items():
        info = DATA.units[uid]
        # no unit in two places; a carried unit rides an alive friendly ship (FS 6.5)
        assert not (u["location"] and u["aboard"]), (n, uid)
        if S.alive(state, uid) and u["aboard"]:
            ship = u["aboard"]
            assert S.alive(state, ship) and units[ship]["side"] == u["side"], (n, uid, ship)
            assert not units[ship]["aboard"], (n, uid, ship)
        # an eliminated unit stays out (FS 2.8, 9.8) but for a Peru replacement (FS 11.3 6-3)
        if before["units"][uid]["eliminated"] and not u["eliminated"]:
            assert info["class"] == "aircraft" and info["side"] == "AR", (n, uid)
        if before["units"][uid].get("withdrawn"):
            assert u.get("withdrawn") and not S.alive(state, uid), (n, uid)
        if S.alive(state, uid):
            assert 1 <= u["steps"] <= info["steps"], (n, uid, u["steps"])
            at = S.where(state, uid)
            if at == S.SOUTH_GEORGIA and u["side"] == "AR":  # FS 3.7, 6.4
                assert info["class"] == "submarine", (n, uid)
            if at == S.ARGENTINA:  # FS 9.7
                assert u["side"] == "AR", (n, uid)
    # FS 6.2(3)(4): airbase limits; AR aircraft base only in Argentina or at Falklands airbases
    for base, most in DATA.airbases.items():
        assert len(S.units_in(state, base, side="AR", classes=["aircraft"])) <= most, (n, base)
    if not state["pending"] and not ended:
        for uid in S.units_in_any(state, side="AR", classes=["aircraft"]):
            at = S.where(state, uid)
            assert at == S.ARGENTINA or at in DATA.airbases, (n, uid, at)
            if at in DATA.airbases:  # FS 6.3 / 9.6: never left on a base the UK controls (a contested one may be used)
                assert state["control"][at] != "UK" or S.contested(state, at), (n, uid, at)
    # FS 3.6: an area only one side has ground units in is that side's
    sides = S.ground_sides_everywhere(state)
    for area in DATA.land_areas:
        if len(sides.get(area, ())) == 1:
            assert state["control"][area] == next(iter(sides[area])), (n, area)
    # FS 6.2(1)(2): cargo within each ship's capacity (UK steps, AR units; one SF rides any
    # surface ship; only Onyx of the submarines carries, the SBS), the B&R only on an armor carrier
    for ship in {u["aboard"] for uid, u in units.items() if S.alive(state, uid) and u["aboard"]}:
        load = S.cargo(state, ship)
        sinfo = DATA.units[ship]
        if sinfo["class"] == "submarine":
            assert sinfo.get("carries_sbs") and len(load) == 1, (n, ship, load)
            continue
        others = [c for c in load if DATA.units[c]["type"] != "sf"]
        if others:
            size = sum(units[c]["steps"] for c in load) if sinfo["side"] == "UK" else len(load)
            assert size <= sinfo.get("capacity", 0), (n, ship, load)
        else:
            assert len(load) <= max(1, sinfo.get("capacity", 0)), (n, ship, load)
        for c in load:
            if DATA.units[c].get("armor"):
                assert sinfo.get("carries_armor"), (n, ship, c)
    # FS 10.5: the stealth unit makes at most five attacks; once-a-game operations (7.1 Op #4, #7, #9)
    assert state["stealth_attacks"] <= 5, n
    for op in (4, 7, 9):
        assert state["ops_log"]["UK"].count(op) <= 1, (n, op)
    assert len(state["op2_done"]) == len(set(state["op2_done"])) <= 3, n
    # FS 7.1 / 11.3 1-1, 5-6: at most two operations in one Operations Phase
    assert state["phase_ops"]["done"] <= state["phase_ops"]["allowed"] <= 2, (n, state["phase_ops"])
    # FS 5.2 / 5.3: phases in order, a new turn starts with the UK Operations Phase; one order
    # spends at most one UK operation (an operation, a pass, or 5-3 Severe Weather)
    if before["phase"] in S.PHASES and state["phase"] in S.PHASES:
        if state["turn"] == before["turn"]:
            assert S.PHASES.index(state["phase"]) >= S.PHASES.index(before["phase"]), (n, before["phase"], state["phase"])
        else:
            assert state["turn"] == before["turn"] + 1 and state["phase"] == S.PHASES[0], (n, state["turn"])
    assert 0 <= before["uk_operations_left"] - state["uk_operations_left"] <= 1, n
    # FS 5.2: the phase's side acts
    if not state["pending"] and not ended:
        side = S.PHASE_SIDE.get(state["phase"])
        assert state["active"] == ([side] if side else []), (n, state["phase"], state["active"])


def territory(g: Game, n: int) -> None:
    """FS 4.4(5) with 3.5: the track is 8 plus every award, and the territorial awards stand at
    minus the worth of each VP area the UK controls now (4 for Port Stanley, 1 for the others)."""
    scored = [e for e in g.pending_events if type(e).__name__ == "VPScored"]
    assert g.state["vp"][S.TRACK] == 8 + sum(e.delta for e in scored), n
    held = sum(d["vp"] for a, d in DATA.areas.items() if d.get("vp") and g.state["control"].get(a) == "UK")
    assert sum(e.delta for e in scored if e.rule == "FS 4.4(5)") == -held, n


def play_checked(n: int) -> Game:
    rng = random.Random(10_000 + n)
    g = Game.create("falklands", options={"uk_operations": rng.choice([30, 12, 6, 3])},
                    game_id=UUID(int=10_000 + n), seed_for=seed_for)
    g.join("UK", "uk", f"u{n}", seed_for)
    g.join("AR", "ar", f"a{n}", seed_for)
    k = 0
    while not g.is_ended:
        seat = g.whose_move()[0]
        for order in play.candidates(g.rules, g.state, seat, rng):
            before, mark = g.state, len(g.pending_events)
            try:
                g.submit(seat, f"o{k}", order, seed_for)
            except (RuleViolation, InvalidOrder) as refused:
                assert refused.rule, refused
                continue
            k += 1
            check(g.state, before, g.pending_events[mark:], n)
            territory(g, n)
            break
        assert k < 5000
    return g


@pytest.mark.parametrize("chunk", range(4))
def test_fs_invariants_hold_after_every_order_of_random_games(chunk):
    for n in range(chunk, GAMES, 4):
        g = play_checked(n)
        # FS 4 / 5.3: once the game has ended every order is refused, naming the rule
        for seat in ("UK", "AR"):
            with pytest.raises(RuleViolation) as refused:
                g.submit(seat, "after", {"kind": "pass"}, seed_for)
            assert refused.value.rule.startswith("FS 4")
