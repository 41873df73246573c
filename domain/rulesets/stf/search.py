"""The Player's searches of the GameSystem's contacts, and how intelligence degrades
(docs/rulesets.md, "Solitaire Task Force: searching and composition").

STF 8.1, 8.2  The GameSystem does not search; the Player evaluates its contacts, some false.
STF 8.3-8.7  ``{"kind": "search", "group": "TF3", "search_value": N}`` in the Patrol phase: the
          Search Value is the base game's (declared); the server rolls the Player's search die
          (data/search.json: a d10, provisional), modified by the target's chit (Enemy -1, Tracked
          -2, a leader -3), and reads the ladder by the Search Value less the modified roll:
          below 0 Unknown, 0 Approximate, 1 Good, 2 Accurate, 3 or more Precise. The GameSystem's
          rolls (false contact, size, composition) follow, each as the text says.
STF 8.8   The nation of a Soviet Player's enemy, at the first Precise report (composition.py).
STF 8.11  ``intelligence_degradation`` (Terminal phase): 1d6 per identified GameSystem task force,
          on a 1 one level down; never a Precise one, nor an Accurate one with a known air strength.
STF 8.12, 8.13  The deployment total rises when a group becomes Accurate, and is readjusted at
          Precise (``composition.DeploymentChanged``); a group that proves a false contact after
          8.11 took its chit away counts 0 (it has no ships).
STF 2.6.5 ``campaign["precise_reports"]``: the Player's Precise search reports of GameSystem task
          forces (recorded; the GameSystem's LBNA modifier counts the Player's task forces it
          found instead, air.py).
"""

from __future__ import annotations

from domain.errors import InvalidOrder
from domain.rulesets.stf import composition
from domain.rulesets.stf.composition import (LEVELS, SEARCH, SEARCH_TABLES, add_estimate, estimate, reveal,
                                             roll_size, roll_table, sorted_ids)
from domain.rulesets.stf.events import CampaignFixed, GroupChanged, GroupRemoved
from domain.rulesets.stf.rules import DATA, STEPS, kind
from domain.rulesets.toolkit import declared, tables
from domain.rulesets.toolkit.engine import Ctx, need, text

DeploymentChanged = composition.DeploymentChanged  # the event of STF 8.12, 8.13 (defined with the total)
SEARCH_VALUE = declared.load_declarable(SEARCH["declarable"]["search_value"], "search.json")
DIE = SEARCH["search_die"]["dice"]
DATA.guess("search.json", "search_die", "dice", SEARCH["search_die"]["provisional"])
for _bound in ("min", "max"):
    DATA.guess("search.json", "declarable.search_value", _bound, SEARCH["declarable"]["search_value"]["provisional"])
CHIT_MODIFIERS = SEARCH["chit_modifiers"]["by_chit"]
LADDER = SEARCH["ladder"]
LEVEL_RULE = {row["level"]: row["rule"] for row in LADDER["rows"]}
LEVEL_CHITS = SEARCH["level_chits"]
LOWER = SEARCH["degradation"]["next_lower"]


def ladder(search_value: int) -> tables.Table:
    """The ladder as a table of the modified roll for this Search Value: data/search.json gives
    each result by the margin (Search Value less modified roll), so the row of margin m is the
    modified roll ``search_value - m``."""
    rows = []
    for row in LADDER["rows"]:
        low, high = tables._row_range(row["margin"], "search.json: ladder")
        lo = None if high is None else search_value - high
        hi = None if low is None else search_value - low
        roll = f"{lo}-{hi}" if lo is not None and hi is not None and lo != hi else (
            str(lo) if lo is not None and lo == hi else (f"{hi}-" if lo is None else f"{lo}+"))
        rows.append({"roll": roll, "result": row["level"]})
    return tables.load_table({"name": "search ladder", "rule": LADDER["rule"], "dice": DIE, "rows": rows},
                             "search.json")


# ---- the search order ----------------------------------------------------------------------------
def _contacts(state: dict) -> list[str]:
    return [gid for gid in sorted_ids(state["groups"]) if state["groups"][gid]["owner"] == "system"
            and _on_map(state["groups"][gid]) and state["groups"][gid].get("intel") != "precise"]


def _on_map(group: dict) -> bool:
    return group.get("status", "on map") == "on map" and group.get("hex") is not None


def _templates(state: dict) -> list[dict]:
    return [{"kind": "search", "group": gid, "search_value": SEARCH_VALUE.min} for gid in _contacts(state)]


@kind("search", rule="STF 8.3", phases=("Patrol",), templates=_templates,
      help="search a GameSystem contact: declare the base game's Search Value, the server rolls and reads "
           "STF 8.3-8.7",
      fields={"group": "the GameSystem task force or subron searched (TF3, SR1...)",
              "search_value": f"declared: {SEARCH_VALUE.stands_for} ({SEARCH_VALUE.describe()})"})
def search(ctx: Ctx, order: dict) -> None:
    gid = text(order, "group", "STF 8.2")
    group = ctx.state["groups"].get(gid)
    if group is None:
        raise InvalidOrder(f"'group' names a group on the map, not {gid!r}", rule="STF 8.2", field="group")
    need(group["owner"] == "system", "STF 8.2",
         f"{gid} is the Player's own group: the Player searches the GameSystem's contacts")
    # STF 8.2 "The player, however, must evaluate the contacts on the board" (a false contact is
    # removed from play, 8.4-8.7; one not yet deployed is not on the board either)
    need(_on_map(group), "STF 8.2", f"{gid} is not on the map ({group.get('status')}): only a contact on the "
                                    "board can be searched")
    need(group.get("intel") != "precise", "STF 8.7",
         f"{gid} is Precisely identified and remains so for the rest of the game: no contact to search")
    cls, fields = declared.declare(SEARCH_VALUE, "Player", order.get("search_value"), field="search_value")
    ctx.emit(cls, **fields)
    value = fields["value"]
    chit = group.get("chit")
    mods = [{"value": CHIT_MODIFIERS[chit], "reason": f"the target has a{'n' if chit == 'Enemy' else ''} {chit} chit"}] \
        if chit in CHIT_MODIFIERS else []
    table = ladder(value)
    reading = roll_table(ctx, table, seat="Player", modifiers=mods, units=[gid],
                         purpose=f"search {gid} against the declared Search Value {value} (STF 8.3-8.7)",
                         rule=lambda v: LEVEL_RULE[tables.read(table, sum(v), None, mods).result])
    RESULTS[reading.result](ctx, gid)


def false_contact(ctx: Ctx, gid: str, rule: str) -> bool:
    """1d6 (the GameSystem's): even, a false contact removed from play (True); odd, hostile. The
    roll of 8.4-8.7 for a target with no chit, and of 8.14/8.15's reveal (movement.py)."""
    reading = roll_table(ctx, SEARCH_TABLES["false contact"], units=[gid], rule=rule,
                         purpose=f"{gid}: a false or a hostile contact ({rule})")
    if reading.result == "false contact":
        ctx.emit(GroupRemoved, group=gid, status="false contact", rule=rule,
                 why=f"{rule}: an even roll ({reading.modified}): a false contact, removed from play")
        counted = composition.contribution(ctx.state, gid)
        if counted:  # an Accurate estimate kept through 8.11's degradation: a false contact costs nothing
            part = "STF 8.13" if ctx.state["groups"][gid]["kind"] == "subron" else "STF 8.12"
            composition.set_points(ctx, gid, 0, part, f"{part}: {gid} proved a false contact: the {counted} points "
                                                      f"it counted as Accurate leave the total (it has no ships)")
        return True
    return False


def _unknown(ctx: Ctx, gid: str) -> None:
    """STF 8.3: no effect."""


def _approximate(ctx: Ctx, gid: str) -> None:
    """STF 8.4: with any chit, no effect; else 1d6, even false contact, odd an Enemy chit."""
    if ctx.state["groups"][gid].get("chit") or false_contact(ctx, gid, "STF 8.4"):
        return
    ctx.emit(GroupChanged, group=gid, changes={"chit": "Enemy", "intel": "approximate"}, rule="STF 8.4",
             why="STF 8.4: an odd roll, a hostile contact: an Enemy chit")


def _good(ctx: Ctx, gid: str) -> None:
    """STF 8.5: with a Tracked or leader chit, no effect; with an Enemy chit (hostile already,
    STF 8.4) a Tracked chit; else 1d6, even false contact, odd a Tracked chit."""
    chit = ctx.state["groups"][gid].get("chit")
    if chit and chit != "Enemy":
        return
    if chit is None and false_contact(ctx, gid, "STF 8.5"):
        return
    why = "an odd roll, a hostile contact" if chit is None else "a hostile contact already (its Enemy chit)"
    ctx.emit(GroupChanged, group=gid, changes={"chit": "Tracked", "intel": "good"}, rule="STF 8.5",
             why=f"STF 8.5: {why}: a Tracked chit")


def _accurate(ctx: Ctx, gid: str) -> None:
    """STF 8.6: no chit, 1d6 (even false contact); a hostile contact with no leader chit has its
    size rolled (a leader chit); a group becoming Accurate raises the deployment total (8.12, 8.13)."""
    group = ctx.state["groups"][gid]
    chit = group.get("chit")
    if chit is None and false_contact(ctx, gid, "STF 8.6"):
        return
    if chit not in composition.SIZE_OF_LEADER:
        roll_size(ctx, gid, "STF 8.6")
    elif not group.get("size"):
        ctx.emit(GroupChanged, group=gid, changes={"size": composition.SIZE_OF_LEADER[chit]}, rule="STF 1.13",
                 why=f"its {chit} chit marks a {composition.SIZE_OF_LEADER[chit]} force")
    if LEVELS.index(ctx.state["groups"][gid].get("intel") or "unknown") >= LEVELS.index("accurate"):
        return  # an Accurate group searched Accurate again: its size is known, nothing changes
    ctx.emit(GroupChanged, group=gid, changes={"intel": "accurate"}, rule="STF 8.6",
             why=f"STF 8.6: {gid} is Accurately identified, a {ctx.state['groups'][gid]['size']} force")
    group = ctx.state["groups"][gid]
    points = estimate(ctx.state, group)
    rule = "STF 8.13" if group["kind"] == "subron" else "STF 8.12"
    add_estimate(ctx, gid, rule, f"{rule}: {gid} increases to Accurate, a {group['size']} "
                 f"{'subron' if group['kind'] == 'subron' else 'task force'}: the total increases by {points}")


def _precise(ctx: Ctx, gid: str) -> None:
    """STF 8.7: no chit, 1d6 (even false contact); else its size if less than Accurate (8.6), its
    composition (composition.reveal), a Precise subron to Shallow. A group already Precise stays
    as it is (8.7: "remains Precisely identified for the rest of the game"; 8.6: "no effect"): an
    LBNA patrol's Precise report (2.6.1) on its megahex rolls nothing for it."""
    group = ctx.state["groups"][gid]
    if group.get("intel") == "precise":
        return
    if group.get("chit") is None and false_contact(ctx, gid, "STF 8.7"):
        return
    reveal(ctx, gid, rule="STF 8.7", why=f"the Player's search reports {gid} Precise")
    if group["kind"] == "subron":
        ctx.emit(GroupChanged, group=gid, changes={"mode": "shallow"}, rule="STF 8.7",
                 why="STF 8.7: a Precise sub is placed in Shallow")
    else:
        count = ctx.state["campaign"].get("precise_reports", 0) + 1
        ctx.emit(CampaignFixed, key="precise_reports", value=count, rule="STF 2.6.5")


RESULTS = {"unknown": _unknown, "approximate": _approximate, "good": _good, "accurate": _accurate,
           "precise": _precise}


# ---- STF 8.11: intelligence degrades -------------------------------------------------------------
@STEPS.step("intelligence_degradation")
def intelligence_degradation(ctx: Ctx, stack: list) -> None:
    """STF 8.11: 1d6 per identified GameSystem task force on the map; on a 1 its level drops one
    (its chit with it). Never a Precise one, nor an Accurate one with a known air strength."""
    stack.pop()
    for gid in sorted_ids(ctx.state["groups"]):
        g = ctx.state["groups"][gid]
        level = g.get("intel") or "unknown"
        if g["owner"] != "system" or g["kind"] != "tf" or not _on_map(g) or level not in LOWER:
            continue
        if level == "accurate" and g.get("air_known"):
            continue
        reading = roll_table(ctx, SEARCH_TABLES["intelligence degradation"], units=[gid],
                             purpose=f"{gid}: does its {level} identification degrade? (STF 8.11)")
        if reading.result != "decreases":
            continue
        lower = LOWER[level]
        changes = {"intel": lower, "chit": LEVEL_CHITS[lower]}
        if level == "accurate":
            changes["size"] = None  # its leader chit, the size's marker (STF 1.13), is taken off
        ctx.emit(GroupChanged, group=gid, changes=changes, rule="STF 8.11",
                 why=f"STF 8.11: a 1: intelligence on {gid} decreases from {level} to {lower}")
