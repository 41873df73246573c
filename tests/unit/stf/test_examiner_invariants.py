"""Invariants of the STF text checked over many randomly played campaigns (the random Player of
domain/rulesets/stf/play.py, seeded as in tests/unit/stf/test_play.py): each campaign's log is
folded again event by event and, after every event, what the text forbids is checked.

- STF 6.2: the GameSystem never has more than 6 task forces and 5 subrons on the map (6.3 and
  6.4 redeploy counters, they add none).
- STF 11.2, 11.3, 11.6: a sunk unit is never un-sunk; a sunk group never comes back on the map,
  never moves and is never changed again.
- STF 8, 10-12: a GameSystem group's identification level changes only by an event naming a rule
  of STF 8, 10, 11 or 12, and falls only by STF 8.11, one level at a time, in the Terminal
  phase, never from Precise, never for a subron (6.3's redeployed counter starts afresh).
- STF 6.7: a phase never advances while a question is pending.
- STF 6.6: a GameSystem task force is placed EMCON side up, a subron in Deep mode.
- STF 6, 8: a group is on the map exactly when it has a hex; intelligence and chits take only the
  text's values (unknown, approximate, good, accurate, precise; Enemy, Tracked, Captain,
  Commodore, Rear Admiral).
- STF 11: a sunk unit is never changed again, assigned to a group nor flown on a strike (10).
- STF 1.9: once the commitment is reached, no GameSystem counter is placed on the map, and when
  the order that reached it is done none is left on the map at Good or lower ("immediately
  removed"; a group degraded later by 8.11 stays: docs/rulesets.md, STF 8's Readings).
- STF 1.10 (with 1.9, 1.11): once the surface commitment limit is reached, no GameSystem task
  force is placed on the map, and when the order that reached it is done none is left on the map
  at Good or lower.
- STF 12.4: after the end, every order is refused, naming an STF rule.
"""

from __future__ import annotations

import os

import pytest

from domain.errors import InvalidOrder, RuleViolation
from tests.unit.stf.test_play import play_one, seed_for

CAMPAIGNS = int(os.environ.get("STF_INVARIANT_GAMES", "80"))
INTEL_RULES = ("STF 8.", "STF 10.", "STF 11.", "STF 12.")
LEVELS = ["unknown", "approximate", "good", "accurate", "precise"]
INTEL = {None, "unknown", "approximate", "good", "accurate", "precise"}
CHITS = {None, "Enemy", "Tracked", "Captain", "Commodore", "Rear Admiral"}


def on_map(state: dict, kind: str) -> int:
    return sum(1 for g in state["groups"].values()
               if g["owner"] == "system" and g["kind"] == kind and g.get("status") == "on map")


def check_event(n: int, before: dict | None, e, after: dict, reached: dict) -> None:
    name = type(e).__name__
    where = (n, after.get("turn"), after.get("phase"), name, getattr(e, "rule", None))
    if "groups" in after:
        assert on_map(after, "tf") <= 6, where
        assert on_map(after, "subron") <= 5, where
        for gid, g in after["groups"].items():
            assert (g.get("status") == "on map") == (g.get("hex") is not None), ("hex and status", gid, g, where)
            assert g.get("intel") in INTEL and g.get("chit") in CHITS, ("intel or chit", gid, g, where)
    if name == "GroupPlaced" and e.group.get("owner") == "system" and e.group.get("hex") is not None:
        if e.group["kind"] == "tf":
            assert e.group.get("emcon") is True, ("STF 6.6 EMCON", e.group, where)
        else:
            assert e.group.get("mode") == "deep", ("STF 6.6 Deep", e.group, where)
    if before is None or "groups" not in before:
        return
    if before.get("campaign", {}).get("commitment_reached"):
        if name == "GroupPlaced" and e.group.get("owner") == "system":
            assert e.group.get("hex") is None, ("STF 1.9: placed after the commitment", e.group, where)
        if name == "OrderAccepted" and not reached.get("at_last_order"):
            low = [gid for gid, g in before["groups"].items() if g["owner"] == "system"
                   and g.get("status") == "on map" and g.get("intel") in ("unknown", "approximate", "good")]
            assert not low, ("STF 1.9: on the map at Good or lower after the commitment", low, where)
    if before.get("campaign", {}).get("surface_limit_reached"):
        if name == "GroupPlaced" and e.group.get("owner") == "system" and e.group.get("kind") == "tf" \
                and e.rule != "STF 12.7":
            assert e.group.get("hex") is None, ("STF 1.10: a task force placed after the surface limit", e.group, where)
        if name == "OrderAccepted" and not reached.get("surface_at_last_order"):
            low = [gid for gid, g in before["groups"].items() if g["owner"] == "system" and g["kind"] == "tf"
                   and g.get("status") == "on map" and g.get("intel") in ("unknown", "approximate", "good")]
            assert not low, ("STF 1.10: a task force at Good or lower after the surface limit", low, where)
    if name == "OrderAccepted":
        reached["at_last_order"] = bool(before.get("campaign", {}).get("commitment_reached"))
        reached["surface_at_last_order"] = bool(before.get("campaign", {}).get("surface_limit_reached"))
    dead = {uid for uid, u in before.get("units", {}).items() if u.get("sunk")}
    if name == "UnitChanged":
        assert e.unit not in dead, ("a sunk unit changed", e.unit, e.changes, where)
    if name == "StrikeFlown":
        assert not dead & set(e.squadrons), ("a sunk squadron flies", dead & set(e.squadrons), where)
    if name == "UnitsAssigned":
        assert not dead & set(e.units), ("a sunk unit assigned", dead & set(e.units), where)
    for uid, u in before.get("units", {}).items():
        if u.get("sunk"):
            assert after["units"].get(uid, {}).get("sunk"), ("a sunk unit was un-sunk", uid, where)
    sunk = {gid for gid, g in before["groups"].items() if g.get("status") == "sunk"}
    if name in ("GroupMoved", "GroupChanged", "GroupPlaced", "StrikeFlown"):
        gid = e.group if isinstance(e.group, str) else e.group.get("id")
        assert gid not in sunk, ("a sunk group acts", gid, where)
    for gid in sunk:
        assert after["groups"][gid].get("status") == "sunk", ("a sunk group came back", gid, where)
    if name == "GroupChanged" and "intel" in e.changes:
        if before["groups"][e.group].get("intel") != e.changes["intel"]:
            assert e.rule.startswith(INTEL_RULES), ("intel changed by", e.rule, where)
            old, new = before["groups"][e.group].get("intel"), e.changes["intel"]
            if old in LEVELS and new in LEVELS and LEVELS.index(new) < LEVELS.index(old):
                assert e.rule == "STF 8.11" and LEVELS.index(new) == LEVELS.index(old) - 1, ("intel fell", old, new, where)
                assert old != "precise" and before["groups"][e.group]["kind"] == "tf", ("8.11", old, where)
                assert before.get("phase") == "Terminal", ("8.11 outside the Terminal phase", where)
    if name == "PhaseAdvanced":
        assert not before.get("pending"), ("a phase advanced with a question pending",
                                           before.get("pending"), where)


def test_stf_invariants_hold_after_every_event_of_many_random_campaigns():
    for n in range(CAMPAIGNS):
        g, _ = play_one(n)
        state, reached = None, {}
        for e in g.pending_events:
            after = g.rules.evolve(state, e)
            if state is not None:
                check_event(n, state, e, after, reached)
            state = after
        assert state == g.state, n
        # STF 12.4: the campaign is over; any order is refused, naming an STF rule.
        for k, order in enumerate(({"kind": "end_phase"}, {"kind": "move", "group": "P1", "path": []})):
            with pytest.raises((RuleViolation, InvalidOrder)) as no:
                g.submit("Player", f"after-end-{k}", order, seed_for)
            assert "STF " in str(no.value), (n, order, str(no.value))
