"""One readable line per event, from its export line: the history, the order result, the stream.

Pure: ``describe(line, rules) -> str``. The ruleset's ``describe`` hook speaks first (its own
events, its own ways of reading dice, e.g. Falklands Showdown's hit numbers); these generic lines
say the rest. Dice lines show every die with purpose, target and outcome. Ids of units, areas and markers are written as the game names them (``rules.names()``):
"2nd Infantry Regiment moved from Argentina to Port Stanley", not ``ri_2`` … ``port_stanley``.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from domain.visibility import shown_data

# The fields of event data (and of a decision's choice) that hold ids of the game's pieces.
NAMED_FIELDS = ("unit", "units", "area", "origin", "destination", "ship", "aboard", "attackers", "defenders",
                "marker", "target", "at", "aircraft", "carriers", "wave", "bombard", "support", "sf", "submarine")


def _dice(d: dict) -> str:
    faces = ", ".join(str(x["value"]) for x in d["dice"])
    sides = {x["sides"] for x in d["dice"]}
    kind = d.get("notation") or (f"{len(d['dice'])}d{sides.pop()}" if len(sides) == 1 else "dice")
    text = f"{d['seat']} rolled {kind} for {d['purpose'] or 'no stated purpose'}"
    if d.get("units"):
        text += f" ({', '.join(d['units'])})"
    target = d.get("target")
    if target and "table" in target:
        return text + _tabled(target, faces) + _outcome_and_rule(d)
    text += f": {faces}"
    if target:
        mods = "".join(f" {m['value']:+d} {m['reason']}".rstrip() for m in target.get("modifiers", []))
        if "result" in target and "compare" in target:
            text += f" — {target['result']}{' (' + mods.strip() + ')' if mods else ''} {target['compare']} {target['value']}"
        else:
            text += " vs " + ", ".join(f"{k} {_words(v)}" for k, v in target.items() if k != "modifiers") + mods
    return text + _outcome_and_rule(d)


def _words(value) -> str:
    """A target's value as words: a list's items joined (STF 1.7's carriers), not a Python list."""
    return ", ".join(str(x) for x in value) if isinstance(value, list) else str(value)


def _sealed_dice(d: dict) -> str:
    """A sealed roll (docs/dice.md, "Sealed rolls"): its faces for a viewer shown them, else only
    that it was rolled, for what (its dice are hidden until the game ends)."""
    if isinstance(d.get("dice"), list):
        return "Sealed: " + _dice(d)
    text = f"{d['seat']} rolled {d['notation']} sealed for {d['purpose'] or 'no stated purpose'}"
    if d.get("units"):
        text += f" ({', '.join(d['units'])})"
    text += ": the dice are hidden until the game ends"
    if d.get("replaces"):
        text += f" (re-roll of #{d['replaces']})"
    return text + (f" ({d['rule']})" if d.get("rule") else "")


def _shown(d: dict) -> str:
    """A sealed roll shown before the end: its faces and outcome, now public."""
    fields = d["fields"]
    faces = fields.get("dice", {}).get("value")
    text = f"{d['seat']} shows sealed roll #{d['roll']}"
    if isinstance(faces, list):
        text += ": " + ", ".join(str(x.get("value")) for x in faces if isinstance(x, dict))
    outcome = fields.get("outcome", {}).get("value")
    if outcome:
        text += f" — {outcome}"
    return text + (f" ({d['rule']})" if d.get("rule") else "")


def _outcome_and_rule(d: dict) -> str:
    """A die line's ending: its outcome, the roll it replaces and its rule."""
    text = f": {d['outcome']}" if d.get("outcome") else ""
    if d.get("replaces"):
        text += f" (re-roll of #{d['replaces']})"
    if d.get("rule"):
        text += f" ({d['rule']})"
    return text


def _tabled(target: dict, faces: str) -> str:
    """A tabled roll (docs/dice.md): "7 +1 terrain = 8 on the combat results table, column 2:1, row 8-9"."""
    mods = "".join(f" {_signed(m['value'])} {m['reason']}" for m in target.get("modifiers") or [])
    column = f", column {target['column']}" if target.get("column") is not None else ""
    modified = f" = {target['modified']}" if mods else ""
    table = target["table"] if re.search(r"\btable\b", str(target["table"]), re.I) else f"{target['table']} table"
    return f": {faces}{mods}{modified} on the {table}{column}, row {target['row']}"


def _signed(value: int) -> str:
    return f"−{-value}" if value < 0 else f"+{value}"


def _order(d: dict) -> str:
    order = d["order"]
    if order is None:  # hidden from this reader (domain/visibility.py), and maybe its seat too
        return f"{d['seat'] or 'A seat'} gives an order (hidden)"
    kind = order.get("kind", "order")
    detail = order.get("text") or order.get("purpose") or order.get("reason") or ""
    if kind == "decide" and "choice" in order:
        detail = choice_text(order["choice"])
    return f"{d['seat']} orders {kind}" + (f": {detail}" if detail else "")


def _vp(d: dict) -> str:
    rule = f" ({d['rule']})" if d.get("rule") else ""
    return f"VP {d['delta']:+d} {d['side']} for {d['reason']} — {d['side']} now {d['total']}{rule}"


def _ended(d: dict) -> str:
    who = f"{d['winner']} wins" if d.get("winner") else "the game is drawn"
    level = f" ({d['level']})" if d.get("level") else ""
    return f"Game over: {who}{level} — {d['reason']}"


TEMPLATES: dict[str, Callable[[dict], str]] = {
    "GameCreated": lambda d: f"Game created: {d['ruleset']} ({d['scenario']}), seats {', '.join(d['seats'])}",
    "SeatJoined": lambda d: f"{d['handle'] if d['handle'] is not None else 'A player'} joined as {d['seat']}",
    "ClientSeedChanged": lambda d: f"{d['seat']} changed its client seed (from the next dice epoch)",
    "SeatKeyRegistered": lambda d: f"{d['seat']} registered a signing key; its orders are signed",
    "OrderSigned": lambda d: f"{d['seat']} signed order {d['order_id']}",
    "OrderAccepted": _order,
    "DiceCommitted": lambda d: (f"Seed of dice epoch {d['epoch']} committed ahead, commitment {d['commitment'][:16]}…"
                                if d["stream"] == "open" else
                                f"Seed of the {d['stream']} dice committed, commitment {d['commitment'][:16]}…"),
    "DiceEpochOpened": lambda d: f"Dice epoch {d['epoch']} opened, commitment {d['commitment'][:16]}…",
    "DiceRolled": _dice,
    "DiceEpochRevealed": lambda d: f"Dice epoch {d['epoch']} revealed, seed {d['seed'][:16]}…",
    "SealedDiceRolled": _sealed_dice,
    "SealedDiceRevealed": lambda d: f"Sealed dice revealed, seed {d['seed'][:16]}…: every sealed roll can now be "
                                    "seen and checked",
    "SealedRollShown": _shown,
    "RandomEventDrawn": lambda d: f"Random event {d['result']}: {d['title']}",
    "UnitMoved": lambda d: f"{d['unit']} moved {('from ' + d['origin'] + ' ') if d.get('origin') else ''}to {d['destination']}",
    "UnitHit": lambda d: f"{d['unit']} hit: {d['steps_lost']} step(s) lost, {d['steps_left']} left",
    "UnitEliminated": lambda d: f"{d['unit']} eliminated",
    "ControlChanged": lambda d: f"{d['area']} now controlled by {d['side'] or 'nobody'}",
    "VPScored": _vp,
    "PhaseAdvanced": lambda d: f"Turn {d['turn']}: {d['phase']} phase",
    "TurnAdvanced": lambda d: f"Turn {d['turn']} begins: {d['phase']} phase",
    "MarkerGained": lambda d: f"{d['side']} gains marker {d['marker']}" if d["marker"] is not None
                              else f"{d['side']} gains a marker (hidden)",
    "MarkerPlayed": lambda d: f"{d['side']} plays marker {d['marker']}",
    "DecisionPending": lambda d: f"Waiting for {d['decision']['seat']}: {d['decision'].get('prompt', d['decision'].get('kind'))}",
    "DecisionResolved": lambda d: f"{d['seat']} decided: {choice_text(d['choice'])}",
    "ResultDeclared": lambda d: f"{d['seat']} declared the {d['what']}: {_value_text(d['value'])} "
                                f"({d['rule']}; it stands for {d['stands_for']})",
    "TakeBackRequested": lambda d: f"{d['seat']} asks to take back order {d['order_id']}" + (f": {d['reason']}" if d.get("reason") else ""),
    "TakeBackAccepted": lambda d: f"{d['seat']} accepted the take-back of order {d['order_id']} (events {d['superseded_from']}–{d['superseded_to']} superseded)",
    "TakeBackDeclined": lambda d: f"{d['seat']} declined the take-back of order {d['order_id']}",
    "Conceded": lambda d: f"{d['seat']} concedes",
    "GameEnded": _ended,
    "StandingOrderSet": lambda d: f"{d['seat']} left a standing order" + (
        f" {d['policy_id']!r} for its {d['decision_kind']} decisions ({d['rule']})" if d.get("policy_id") else ""),
    "StandingOrderCancelled": lambda d: f"{d['seat']} cancelled a standing order" + (
        f" {d['policy_id']!r} ({d['rule']})" if d.get("policy_id") else ""),
    "StandingOrderUsed": lambda d: f"{d['seat']}'s standing order" + (f" {d['policy_id']!r}" if d.get("policy_id") else "")
                                   + f" answers {d['decision_id']}: {choice_text(d['choice'])} ({d['rule']})",
    "AnnotationAdded": lambda d: _annotation(d),
    "UmpireProposed": lambda d: f"{d['proposed_by']} proposes {d['umpire']} as umpire (appointed once every seat accepts)",
    "UmpireAccepted": lambda d: f"{d['seat']} accepts {d['umpire']} as umpire",
    "UmpireDeclined": lambda d: f"{d['seat']} declines {d['umpire']} as umpire: nobody is appointed",
    "UmpireAppointed": lambda d: f"{d['umpire']} is the umpire ({d['agreement']}" + (f": {', '.join(d['seats'])}" if d.get("seats") else "")
                                 + "), and sees hidden information",
    "UmpireRevoked": lambda d: f"{d['by']} ended {d['umpire']}'s role as umpire" + (f": {d['reason']}" if d.get("reason") else ""),
    "SealedRoundOpened": lambda d: f"Sealed-orders round {d['round']} ({d['rule']}): {', '.join(d['seats'])} seal their orders",
    "OrderSealed": lambda d: f"{d['seat']} sealed its orders for round {d['round']} (commitment {d['commitment'][:16]}…)",
    "OrderRevealed": lambda d: f"{d['seat']} revealed "
                               + (f"{len(d['orders'])} order(s)" if d["orders"] is not None else "its orders (hidden)")
                               + f" for round {d['round']}",
    "SealedOrdersSigned": lambda d: f"{d['seat']} signed its {d['kind']} of round {d['round']}",
    "CommandSigned": lambda d: f"{d['seat']} signed its {d['kind'].replace('_', ' ')}",
    "SealedOrdersCarriedOut": lambda d: f"Round {d['round']}'s orders are carried out ({d['rule']}): "
                                        + (", ".join(f"{e['seat']} #{e['index'] + 1}" for e in d["sequence"]) or "none"),
    "SealedOrderRefused": lambda d: f"{d['seat']}'s order #{d['index'] + 1} of round {d['round']} is refused"
                                    + (f": {d['reason']}" if d["reason"] is not None else ""),
    "PositionSet": lambda d: f"The game starts from position {d['position']}: {d['title']}",
    "SandboxForked": lambda d: (f"A sandbox of game {d['source']}, from its state right after event {d['at']} "
                                f"(hash {d['at_hash'][:16]}…), forked by {d['by']}; its dice are its own"),
    # Time control (domain/clock.py)
    "TimeControlSet": lambda d: (f"Time control: {d['days']} day{'s' if d['days'] != 1 else ''} per {d['per']}"
                                 + (f", reminders {', '.join(f'{h} h' for h in d['reminders'])} before a deadline"
                                    if d["reminders"] else "")
                                 + f", {d['vacation_days']} vacation days per seat; at a timeout: "
                                 + ("the opponent may claim the win" if d["on_timeout"] == "claim" else "a pass")),
    "DeadlineSet": lambda d: f"{', '.join(d['seats'])} to move by {d['deadline']}",
    "DeadlineExtended": lambda d: f"The deadline of {', '.join(d['seats'])} moves to {d['deadline']}: {d['reason']}",
    "DeadlineReminder": lambda d: f"Reminder: {', '.join(d['seats'])} must move within {d['hours']} h (by {d['deadline']})",
    "VacationTaken": lambda d: f"{d['seat']} is on vacation for {d['days']} day{'s' if d['days'] != 1 else ''}, "
                               f"until {d['until']} ({d['used']} day{'s' if d['used'] != 1 else ''} used)",
    "ExtensionGranted": lambda d: f"{d['seat']} gives more time: {d['days']} day{'s' if d['days'] != 1 else ''}",
    "TimedOut": lambda d: f"{', '.join(d['seats'])} let the deadline {d['deadline']} pass"
                          + (": another seat may claim the win" if d["on_timeout"] == "claim" else ": the server passes"),
    "WinClaimed": lambda d: f"{d['seat']} claims the win on time against {', '.join(d['against'])}",
    # The events of the toolkit that rulesets share (battles, units entering and leaving, effects).
    "UnitEntered": lambda d: f"{d['unit']} enters play " + (f"aboard {d['aboard']}" if d.get("aboard") else f"in {d['area']}") + f" ({d['rule']})",
    "UnitEmbarked": lambda d: f"{d['unit']} embarks on {d['ship']} ({d['rule']})",
    "UnitDisembarked": lambda d: f"{d['unit']} lands from {d['ship']} in {d['area']} ({d['rule']})",
    "UnitRepaired": lambda d: f"{d['unit']} repaired: Hit marker removed ({d['rule']})",
    "UnitWithdrawn": lambda d: f"{d['unit']} leaves play: {d['reason']} ({d['rule']})",
    "BattleBegun": lambda d: f"Battle in {d['area']}: {d['attacker']} attacks with {', '.join(d['attackers'])} "
                             f"against {', '.join(d['defenders'])} ({d['rule']})",
    "EffectGained": lambda d: f"{d['side']}: {d['title']} ({d['rule']})",
    "EffectSpent": lambda d: f"{d['side']}: {d['effect'].replace('_', ' ')} over ({d['rule']})",
}


def _annotation(d: dict) -> str:
    """An annotation's line: who wrote on which event, and what, unless it is private to others."""
    who = d["author"] if d["role"] != "spectator" else f"spectator {d['author']}"
    kind = "a private note" if d["private"] else "a note"
    return f"{who} wrote {kind} on event {d['about_seq']}" + (f": {d['text']}" if d["text"] is not None else "")


def choice_text(choice: Any) -> str:
    """A decision's answer in words: ``{'fire': 'auto'}`` -> "fire: auto"."""
    if isinstance(choice, dict):
        if not choice:
            return "as offered"
        return "; ".join(f"{str(k).replace('_', ' ')}: {_value_text(v)}" for k, v in choice.items())
    return _value_text(choice)


def _value_text(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(_value_text(v) for v in value) or "none"
    if isinstance(value, dict):
        return ", ".join(f"{_value_text(k)} → {_value_text(v)}" for k, v in value.items())
    return str(value)


def named(data: Any, names: dict[str, str]) -> Any:
    """``data`` with the ids in NAMED_FIELDS (and in maps of ids, as a choice's moves) replaced by
    their names; other values as they are."""
    if not names:
        return data
    if isinstance(data, str):
        return names.get(data, data)
    if isinstance(data, list):
        return [named(v, names) for v in data]
    if isinstance(data, dict):
        return {(names.get(k, k) if isinstance(k, str) else k):
                (named(v, names) if k in NAMED_FIELDS or k in names or isinstance(v, (dict, list)) else v)
                for k, v in data.items()}
    return data


def describe(line: dict, rules: Any = None) -> str:
    """The readable line of one event (export-line form); ``rules`` (the game's ruleset) names
    its pieces and says first, with its ``describe`` hook, the lines that are its own."""
    names = rules.names() if rules is not None else {}
    try:
        data = _named_data(shown_data(line), names)  # a field hidden from the reader reads None
        own = rules.describe(line["type"], data) if rules is not None else None
        if own is not None:
            return own
        template = TEMPLATES.get(line["type"])
        return template(data) if template is not None else line["type"]
    except (KeyError, TypeError, ValueError, AttributeError):
        return line["type"]  # a redacted or unusual event still gets a line


def _named_data(data: dict, names: dict[str, str]) -> dict:
    """The event's data with its pieces' ids replaced by names: the fields that hold ids, and a
    decision's choice; free text (purposes, reasons, titles) is left alone."""
    if not names or not isinstance(data, dict):
        return data
    out = dict(data)
    for key in NAMED_FIELDS:
        if key in out:
            out[key] = named(out[key], names)
    if isinstance(out.get("choice"), (dict, list, str)):
        out["choice"] = named(out["choice"], names)
    if isinstance(out.get("order"), dict) and "choice" in out["order"]:
        out["order"] = {**out["order"], "choice": named(out["order"]["choice"], names)}
    return out
