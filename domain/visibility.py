"""Per-viewer filtering of hidden information, in one place for every read.

A viewer is a seat name, ``"umpire"`` (sees everything) or ``None`` (a spectator, or an admin
who is not seated: public information only). Rulesets say what is hidden through ``view`` and
``redact``; this module applies them the same way to state, events, stream, history, dice and
export. Seeds of unrevealed epochs are never in the log, so no filtering is needed for them.
"""

from __future__ import annotations

from domain.errors import DamagedLog
from domain.rulesets import UMPIRE, Ruleset


def view_state(rules: Ruleset, state: dict, viewer: str | None) -> dict:
    return state if viewer == UMPIRE else rules.view(state, viewer)


# A standing order is private to its seat and the umpire (docs/rulesets.md, Standing orders): the
# others see that the seat set or cancelled one, and, when one answers, the answer but not its name.
_STANDING_HIDDEN = {
    "StandingOrderSet": ("policy_id", "decision_kind", "policy", "rule", "salt"),
    "StandingOrderCancelled": ("policy_id", "decision_kind", "rule"),
    "StandingOrderUsed": ("policy_id",),
}


def redact_standing(event_type: str, data: dict, viewer: str | None) -> dict:
    """``data`` of a standing order's event as ``viewer`` may see it; other events unchanged."""
    hidden = _STANDING_HIDDEN.get(event_type)
    if hidden is None or viewer == data["seat"]:
        return data
    return {**data, **{key: None for key in hidden}}


# How many lines before a page decide how its first lines are shown: an OrderSigned, recorded
# right after its OrderAccepted, hides its signature when that order is hidden (and a
# SealedOrdersSigned of a reveal when that reveal is).
CONTEXT = 1


def filter_lines(rules: Ruleset, lines: list[dict], viewer: str | None, context: list[dict] = ()) -> list[dict]:
    """Lines as ``viewer`` may see them: redacted data is marked ``"redacted": true`` (its hash
    then no longer matches, on purpose); an event the viewer may not know of at all is left out.
    ``context``: the lines right before ``lines`` when they are a page of a longer log (at least
    the last ``CONTEXT``), read for what they say of the page and not returned."""
    if viewer == UMPIRE:
        return lines
    if context and lines:
        first = lines[0]["seq"]
        return [line for line in filter_lines(rules, [*context[-CONTEXT:], *lines], viewer) if line["seq"] >= first]
    shown = []
    hidden_orders = set()  # order ids whose OrderAccepted this viewer may not read in full
    hidden_reveals = set()  # (seat, round) of the OrderRevealed lines this viewer may not read in full
    for line in lines:
        try:
            data = redact_standing(line["type"], _states_as_seen(rules, line, viewer), viewer)
            data = rules.redact(line["type"], data, viewer)
            if line["type"] == "OrderAccepted" and data is not line["data"]:
                hidden_orders.add(line["data"]["order_id"])
            elif line["type"] == "OrderRevealed" and data is not line["data"]:
                hidden_reveals.add((line["data"]["seat"], line["data"]["round"]))
            if (line["type"] == "OrderSigned" and line["data"]["order_id"] in hidden_orders
                    or line["type"] == "SealedOrdersSigned" and line["data"]["kind"] == "reveal"
                    and (line["data"]["seat"], line["data"]["round"]) in hidden_reveals):
                # A signature lets anyone test a guess of what it signs: hidden with the order or reveal.
                # (A seal signs only its commitment, which everyone sees: its signature is shown.)
                data = None if data is None else {**data, "signature": None}
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            # Data that does not fit its event type (a row changed outside warlog): what it
            # hides cannot be known, so nothing of it is shown.
            raise DamagedLog(f"the stored log of game {line.get('game_id')} is damaged at line {line.get('seq')} "
                             f"({type(exc).__name__}); its integrity check names the line") from exc
        if data is None:
            continue
        shown.append(line if data is line["data"] else {**line, "data": data, "redacted": True})
    return shown


# The lines that hold a whole state of the game: GameCreated its set-up (a game that starts from
# a state holding hidden information, such as a sandbox the umpire forked), TakeBackAccepted the
# state it restores. Each is shown as ``view`` shows that state to the viewer.
_STATES = {"GameCreated": "setup", "TakeBackAccepted": "restored"}


def _states_as_seen(rules: Ruleset, line: dict, viewer: str | None) -> dict:
    """A line's data, the state it holds (if any) as ``viewer`` may see it."""
    data, key = line["data"], _STATES.get(line["type"])
    if key is None:
        return data
    seen = rules.view(data[key], viewer)
    return data if seen is data[key] or seen == data[key] else {**data, key: seen}
