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


def filter_lines(rules: Ruleset, lines: list[dict], viewer: str | None) -> list[dict]:
    """Lines as ``viewer`` may see them: redacted data is marked ``"redacted": true`` (its hash
    then no longer matches, on purpose); an event the viewer may not know of at all is left out."""
    if viewer == UMPIRE:
        return lines
    shown = []
    hidden_orders = set()  # order ids whose OrderAccepted this viewer may not read in full
    for line in lines:
        try:
            data = redact_standing(line["type"], _created_as_seen(rules, line, viewer), viewer)
            data = rules.redact(line["type"], data, viewer)
            if line["type"] == "OrderAccepted" and data is not line["data"]:
                hidden_orders.add(line["data"]["order_id"])
            elif line["type"] == "OrderSigned" and line["data"]["order_id"] in hidden_orders:
                # A signature lets anyone test a guess of the order it signs: hidden with the order.
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


def _created_as_seen(rules: Ruleset, line: dict, viewer: str | None) -> dict:
    """A line's data; for GameCreated, its set-up as ``viewer`` may see it: a game that starts
    from a state holding hidden information (a sandbox forked by the umpire) hides it there too."""
    data = line["data"]
    if line["type"] != "GameCreated":
        return data
    seen = rules.view(data["setup"], viewer)
    return data if seen is data["setup"] or seen == data["setup"] else {**data, "setup": seen}
