"""Per-viewer filtering of hidden information, in one place for every read.

A viewer is a seat name, ``"umpire"`` (sees everything) or ``None`` (a spectator, or an admin
who is not seated: public information only). What may be hidden is said twice: when an event is
recorded, which of its fields some viewer may not see (``concealable``: in a format-2 game each
gets a salt, and the line's hash covers its commitment, docs/dice.md "Concealed fields"); when a
line is read, which of them this viewer may not see (``hidden_fields``). Both join the generic
rules here (standing orders, private annotations, a hidden order's signature, sealed rolls, a
set-up or a restored state holding hidden information) to the ruleset's hooks. ``filter_lines`` applies them the same
way to events, stream, history, dice, notifications, artifacts and export; states go through
``view_state``. Seeds of unrevealed epochs are never in the log, so no filtering is needed for them.
A sealed roll's faces (docs/dice.md, "Sealed rolls") are shown to the seat that rolled and the
umpire only, until the sealed stream's seed is revealed at the end of the game or the ruleset shows
that one roll (SealedRollShown).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from domain import chain
from domain.errors import DamagedLog
from domain.rulesets import UMPIRE, Ruleset
from domain.rulesets.toolkit.hidden import Private, Secrets


def view_state(rules: Ruleset, state: dict, viewer: str | None) -> dict:
    return state if viewer == UMPIRE else rules.view(state, viewer)


# A standing order is private to its seat and the umpire (docs/rulesets.md, Standing orders): the
# others see that the seat set or cancelled one, and, when one answers, the answer but not its name.
_STANDING = Secrets(
    Private("StandingOrderSet", ("policy_id", "decision_kind", "policy", "rule", "salt")),
    Private("StandingOrderCancelled", ("policy_id", "decision_kind", "rule")),
    Private("StandingOrderUsed", ("policy_id",)),
)
# The signature of a seat's standing-order command is as private as the standing order it signs, and
# a private annotation's as its text.
_PRIVATE_COMMANDS = ("standing_order", "standing_order_cancel",  # domain/signatures.py STANDING_ORDER*
                     "private_annotation")  # PRIVATE_ANNOTATION
# A private annotation's text is read by its seat (an umpire's: by the umpire alone) and the umpire.
ANNOTATION = "AnnotationAdded"


def _annotation_hidden(data: dict, viewer: str | None) -> set[str]:
    return {"text"} if data["private"] and (data["seat"] is None or viewer != data["seat"]) else set()
# A sealed roll (docs/dice.md, "Sealed rolls") is seen by its roller (and the umpire) only.
_SEALED_ROLLS = Secrets(Private("SealedDiceRolled", ("dice", "target", "outcome")))  # SEALED_ROLL_FIELDS
_GENERIC = (_STANDING, _SEALED_ROLLS)
# Fields that hold a whole state of the game, hidden where the ruleset's ``view`` of it differs.
_STATES = {"GameCreated": "setup", "TakeBackAccepted": "restored"}
# What of an OrderSigned is hidden with each field of its OrderAccepted: the signature lets anyone
# test a guess of the order it signs; the seat and the order id are the order's own.
_SIGNED_WITH = {"order": "signature", "seat": "seat", "order_id": "order_id"}
# The fields of an OrderRevealed whose hiding hides the signature of the reveal (SealedOrdersSigned).
_REVEALED = {"orders", "salt"}


def concealable(rules: Ruleset, event_type: str, data: dict, viewers: Iterable[str | None],
                before: tuple[str, dict] | None = None) -> tuple[str, ...]:
    """The fields of a new event's ``data`` that some viewer may not see, now or later: the
    ones a format-2 game conceals when it records the event. ``viewers`` are the game's seats
    and None (spectators); ``before`` is (type, data) of the event recorded just before it in
    the same command (an OrderSigned's OrderAccepted)."""
    fields = [f for secrets in _GENERIC for f in secrets.concealable(event_type, data)]
    if event_type == ANNOTATION and data["private"]:
        fields.append("text")
    state_field = _STATES.get(event_type)
    if state_field and any(rules.view(data[state_field], v) != data[state_field] for v in viewers):
        fields.append(state_field)
    if event_type == "OrderSigned":
        if before is None or before[0] != "OrderAccepted" or before[1]["order_id"] != data["order_id"]:
            fields.extend(_SIGNED_WITH.values())  # its order not known here: all that may be hidden with it
        else:
            fields.extend(_SIGNED_WITH[f] for f in before[1].get(chain.CONCEALED) or {} if f in _SIGNED_WITH)
    if event_type == "CommandSigned" and data["kind"] in _PRIVATE_COMMANDS:
        fields.append("signature")  # it would let anyone test a guess of the standing order it signs
    if event_type == "SealedOrdersSigned" and data["kind"] == "reveal":
        # A signature lets anyone test a guess of what it signs: concealed with a concealed reveal.
        # (A seal signs only its commitment, which everyone sees: its signature is shown.)
        if before is None or before[0] != "OrderRevealed" or set(before[1].get(chain.CONCEALED) or {}) & _REVEALED:
            fields.append("signature")
    fields.extend(rules.concealable(event_type, data))
    return tuple(f for f in dict.fromkeys(fields) if f != chain.CONCEALED)


# A sealed roll's fields that show its faces or what they decided (docs/dice.md, "Sealed rolls").
SEALED_ROLL = "SealedDiceRolled"
SEALED_ROLL_FIELDS = ("dice", "target", "outcome")
SEALED_REVEAL = "SealedDiceRevealed"
SEALED_SHOWN = "SealedRollShown"


def sealed_revealed_in(lines: list[dict]) -> bool:
    """Whether ``lines`` hold the sealed stream's reveal (then every sealed roll may be shown)."""
    return any(line.get("type") == SEALED_REVEAL for line in lines)


def shown_rolls_in(lines: list[dict]) -> set[int]:
    """The seqs of the sealed rolls that ``lines`` show one by one (SealedRollShown)."""
    return {line["data"].get("roll") for line in lines
            if line.get("type") == SEALED_SHOWN and isinstance(line.get("data"), dict)}


@dataclass
class Walk:
    """What a walk through a log has seen that later lines depend on: for each order id, what of
    its OrderSigned is hidden from this viewer with its order (``_SIGNED_WITH``). A reader that
    filters a log in pages passes one Walk to every page."""

    orders_hidden: dict[str, set[str]] = field(default_factory=dict)
    # (seat, round) -> whether this viewer may not read that OrderRevealed in full
    reveals_hidden: dict[tuple, bool] = field(default_factory=dict)
    # Whether the sealed dice are revealed: then every sealed roll is shown. A reader that knows
    # the game says so; else it is learnt from the log, which errs on the hidden side.
    sealed_revealed: bool = False
    # The seqs of the sealed rolls shown one by one before the end: as ``sealed_revealed``.
    shown_rolls: set[int] = field(default_factory=set)


def hidden_fields(rules: Ruleset, event_type: str, data: dict, viewer: str | None, walk: Walk,
                  seq: int | None = None) -> set[str]:
    """The fields of recorded event ``seq``'s ``data`` that ``viewer`` may not see."""
    if viewer == UMPIRE:
        return set()
    hidden = {f for secrets in _GENERIC for f in secrets.hidden_fields(event_type, data, viewer)}
    if event_type == SEALED_ROLL and (walk.sealed_revealed or seq in walk.shown_rolls):
        hidden -= set(SEALED_ROLL_FIELDS)
    if event_type == ANNOTATION:
        hidden |= _annotation_hidden(data, viewer)
    state_field = _STATES.get(event_type)
    if state_field and rules.view(data[state_field], viewer) != data[state_field]:
        hidden.add(state_field)
    if event_type == "OrderSigned":
        with_order = walk.orders_hidden.get(data["order_id"])
        if with_order is None:  # its order is not in this stretch of the log: hidden from all but its seat
            with_order = set(data.get(chain.CONCEALED) or {}) if viewer != data["seat"] else set()
        hidden |= with_order
    if event_type == "CommandSigned" and data["kind"] in _PRIVATE_COMMANDS and viewer != data["seat"]:
        hidden.add("signature")
    if event_type == "SealedOrdersSigned" and data["kind"] == "reveal":
        reveal_hidden = walk.reveals_hidden.get((data["seat"], data["round"]))
        if reveal_hidden is None:  # its reveal is not in this stretch of the log: hidden from all but its seat
            reveal_hidden = "signature" in (data.get(chain.CONCEALED) or {}) and viewer != data["seat"]
        if reveal_hidden:
            hidden.add("signature")
    return hidden | set(rules.hidden_fields(event_type, data, viewer))


def filter_lines(rules: Ruleset, lines: list[dict], viewer: str | None, walk: Walk | None = None, *,
                 sealed_revealed: bool | None = None, shown_rolls: Iterable[int] = ()) -> list[dict]:
    """Lines as ``viewer`` may see them. A hidden field of a format-2 line holds its commitment
    and its salt is withheld (null), so the line keeps its hash; a field that was not concealed
    when recorded (format 1) is removed instead and the line marked ``"redacted": true`` (its
    hash then no longer matches, on purpose). The umpire's lines are the log as it is.
    ``sealed_revealed``: whether the game's sealed dice are revealed (at the version read); by
    default, whether ``lines`` hold their reveal. ``shown_rolls``: the seqs of the sealed rolls
    shown one by one (``Game.shown_rolls``), besides those ``lines`` show."""
    if viewer == UMPIRE:
        return lines
    walk = walk if walk is not None else Walk()
    walk.sealed_revealed = walk.sealed_revealed or (
        sealed_revealed if sealed_revealed is not None else sealed_revealed_in(lines))
    walk.shown_rolls |= set(shown_rolls) | shown_rolls_in(lines)
    shown = []
    for line in lines:
        try:
            hidden = hidden_fields(rules, line["type"], line["data"], viewer, walk, line["seq"])
            if line["type"] == "OrderAccepted":
                walk.orders_hidden[line["data"]["order_id"]] = {_SIGNED_WITH[f] for f in hidden if f in _SIGNED_WITH}
            elif line["type"] == "OrderRevealed":
                walk.reveals_hidden[(line["data"]["seat"], line["data"]["round"])] = bool(hidden & _REVEALED)
            shown.append(_hide(rules, line, hidden, viewer) if hidden else line)
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            # Data that does not fit its event type (a row changed outside warlog): what it
            # hides cannot be known, so nothing of it is shown.
            raise DamagedLog(f"the stored log of game {line.get('game_id')} is damaged at line {line.get('seq')} "
                             f"({type(exc).__name__}); its integrity check names the line") from exc
    return shown


def _hide(rules: Ruleset, line: dict, hidden: set[str], viewer: str | None) -> dict:
    data = line["data"]
    salts = data.get(chain.CONCEALED)
    salts = salts if isinstance(salts, dict) else {}
    out, withheld, redacted = dict(data), dict(salts), False
    for name in sorted(hidden):
        if name not in data or name == chain.CONCEALED:
            continue
        if name in salts:  # concealed when recorded: its commitment stands for it
            if salts[name] is not None:
                out[name] = chain.field_commitment(name, salts[name], data[name])
                withheld[name] = None
        else:  # not concealed when recorded (format 1): removed, and the line no longer verifies
            out[name] = rules.view(data[name], viewer) if name == _STATES.get(line["type"]) else None
            redacted = True
    if withheld:
        out[chain.CONCEALED] = withheld
    seen = {**line, "data": out}
    if redacted:
        seen["redacted"] = True
    return seen


def fully_shown(line: dict) -> bool:
    """Whether ``line`` (as filtered for a viewer) shows every field of its event."""
    return line.get("redacted") is not True and not chain.withheld(line.get("data"))


def shown_data(line: dict) -> dict:
    """A filtered line's data for display: a field withheld from this viewer reads None, not its
    commitment."""
    data = line.get("data")
    hidden = chain.withheld(data)
    return {k: (None if k in hidden else v) for k, v in data.items()} if hidden else data
