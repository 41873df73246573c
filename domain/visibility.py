"""Per-viewer filtering of hidden information, in one place for every read.

A viewer is a seat name, ``"umpire"`` (sees everything) or ``None`` (a spectator, or an admin
who is not seated: public information only). Rulesets say what is hidden through ``view`` and
``redact``; this module applies them the same way to state, events, stream, history, dice and
export. Seeds of unrevealed epochs are never in the log, so no filtering is needed for them.
A sealed roll's faces are (docs/dice.md, "Sealed rolls"): shown to the seat that rolled and the
umpire only, until the sealed stream's seed is revealed at the end of the game.
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


# A sealed roll's fields that show its faces or what they decided: hidden from every viewer but the
# seat that rolled and the umpire until SealedDiceRevealed (docs/dice.md, "Sealed rolls").
SEALED_ROLL = "SealedDiceRolled"
SEALED_ROLL_FIELDS = ("dice", "target", "outcome")
SEALED_REVEAL = "SealedDiceRevealed"


def sealed_roll_hidden(event_type: str, data: dict, viewer: str | None, revealed: bool) -> tuple[str, ...]:
    """The fields of an event ``viewer`` may not see because they are a sealed roll's: none once
    the sealed stream is ``revealed``, none for the seat that rolled (the umpire sees all)."""
    if event_type != SEALED_ROLL or revealed or viewer == UMPIRE or viewer == data["seat"]:
        return ()
    return SEALED_ROLL_FIELDS


def redact_sealed_roll(event_type: str, data: dict, viewer: str | None, revealed: bool) -> dict:
    """``data`` of a sealed roll as ``viewer`` may see it; other events unchanged."""
    hidden = sealed_roll_hidden(event_type, data, viewer, revealed)
    return {**data, **{key: None for key in hidden}} if hidden else data


def sealed_revealed_in(lines: list[dict]) -> bool:
    """Whether ``lines`` hold the sealed stream's reveal (then every sealed roll may be shown)."""
    return any(line.get("type") == SEALED_REVEAL for line in lines)


def filter_lines(rules: Ruleset, lines: list[dict], viewer: str | None, *,
                 sealed_revealed: bool | None = None) -> list[dict]:
    """Lines as ``viewer`` may see them: redacted data is marked ``"redacted": true`` (its hash
    then no longer matches, on purpose); an event the viewer may not know of at all is left out.

    ``sealed_revealed``: whether the game's sealed dice stream is revealed (at the version the
    lines are read at); by default, whether ``lines`` hold its reveal, which is right for a log
    read from its start and errs on the hidden side for a page read after the game ended."""
    if viewer == UMPIRE:
        return lines
    if sealed_revealed is None:
        sealed_revealed = sealed_revealed_in(lines)
    shown = []
    hidden_orders = set()  # order ids whose OrderAccepted this viewer may not read in full
    for line in lines:
        try:
            data = redact_standing(line["type"], _created_as_seen(rules, line, viewer), viewer)
            data = redact_sealed_roll(line["type"], data, viewer, sealed_revealed)
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
