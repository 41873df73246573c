"""The freeform ruleset's rules.

FF 1  Sides: 1 to 8 named sides, one seat each.
FF 2  Sequence: turns made of 1 to 30 named phases, no name twice; any seat may act at any time;
      "advance" moves to the next phase, and after the last phase to the next turn (which closes the
      dice epoch). It is also the pass a time control gives for a seat that lets its deadline pass.
      With ``last_turn`` set (at most 9999), advancing past it is refused: end the game instead.
FF 3  Dice: a seat rolls NdS, dS or d66 (two ordered d6) with a stated purpose, optionally
      against a target; a re-roll names the roll it replaces, which must be the last roll.
FF 4  VP: with a VP track, a seat adjusts a side's VP by a non-zero delta with a reason; the track
      runs from -1,000,000 to 1,000,000.
FF 5  End: a seat ends the game, naming the winner (or none, a draw), a level and a reason.
FF 6  Take-back: a seat may ask to take back its last order; the opponent accepts or declines.
FF 7  Hidden notes: a note marked private is seen by its author and umpires only; the other
      seats and spectators see that a note was written, not what it says.
FF 8  Sealed orders: with ``sealed_orders`` set, every round each side seals its orders (any
      number, 0 to 20), then, once all have sealed, reveals them; the revealed orders are carried
      out side by side in the order of the sides, each side's in the order it sealed them; an
      order the rules refuse then is recorded as refused and the rest go on.
FF 9  Sealed rolls: a roll marked sealed is made in the game's sealed dice stream; its dice, target
      and outcome are seen by the seat that rolled (and umpires) only, until the game ends and the
      sealed stream's seed is revealed; the others see that it was rolled, for what, not its faces.
      The seat that rolled it may show it to everyone before then ("show"); it stays shown.
"""

from __future__ import annotations

import operator
from typing import Any

from domain import chain
from domain import dice as dicemod
from domain import events as ev
from domain.errors import InvalidOrder, InvalidSetup, RuleViolation
from domain.rulesets import RESERVED_SEATS, Ruleset, Setup, core
from domain.rulesets.toolkit.engine import known_fields, unknown_kind
from domain.rulesets.toolkit.hidden import ORDER_FIELDS, Private, Secrets

MAX_SIDES = 8
MAX_PHASES = 30
MAX_NAME = 40  # a side's or a phase's name: printable characters on one line
MAX_LAST_TURN = 9999
MAX_VP = 1_000_000  # a delta and a side's total both stay within ±MAX_VP (FF 4)
MAX_TARGET = 1_000_000  # a target's value and each modifier's (FF 3)
MAX_MODIFIERS = 20
MAX_UNITS = 50
MAX_LABEL = 100  # a rule, a level, a unit's name, a modifier's reason
# How long each free text of an order may be, in characters; other texts: MAX_LABEL.
MAX_TEXT = {"text": 4000, "reason": 1000, "purpose": 200}
KINDS = ("note", "roll", "show", "vp", "advance", "end")
# The order kinds, for clients (``order_kinds``): fields with a line each; ``words`` are the fields
# the CLI takes as words after the kind (``warlog order GAME roll 2d6``).
ORDER_KINDS = (
    {"kind": "note", "rule": "FF 2", "help": "a note in the log (FF 7: private, seen by its author and umpires only)",
     "fields": {"text": "the note, up to 4,000 characters", "private": "true: hidden from the other seats (FF 7)",
                "fields": "optional JSON object of your own fields"}, "words": ["text"]},
    {"kind": "roll", "rule": "FF 3", "help": "the server rolls NdS, dS or d66 for a stated purpose, optionally against a target",
     "fields": {"dice": "NdS, dS or d66", "purpose": "what the roll is for", "rule": "the rule it applies (optional)",
                "units": "the units concerned (optional)", "target": "{compare, value, modifiers} (optional)",
                "replaces": "re-roll: the seq of the last roll (optional)",
                "sealed": "true: only you (and umpires) see the faces until the game ends (FF 9; optional)"},
     "words": ["dice"]},
    {"kind": "show", "rule": "FF 9", "help": "show one of your sealed rolls to everyone before the game ends",
     "fields": {"roll": "the seq of your sealed roll"}, "words": ["roll"]},
    {"kind": "vp", "rule": "FF 4", "help": "adjust a side's VP by a non-zero delta, with a reason",
     "fields": {"side": "the side", "delta": "a whole number, not 0", "reason": "why",
                "rule": "the rule it applies (optional)"}, "words": ["side", "delta"]},
    {"kind": "advance", "rule": "FF 2", "help": "move to the next phase (after the last, the next turn)",
     "fields": {}, "words": []},
    {"kind": "end", "rule": "FF 5", "help": "end the game naming the winner (or none: a draw), a level and a reason",
     "fields": {"winner": "a side, or null for a draw", "level": "the level of victory (optional)", "reason": "why"},
     "words": ["winner"]},
)

# The fields each kind takes, as listed above, and the rule that names them; "private" (FF 7) is
# taken by every kind (false on any but a note).
FIELDS = {k["kind"]: set(k["fields"]) for k in ORDER_KINDS}
RULE_OF = {k["kind"]: k["rule"] for k in ORDER_KINDS}


def _private(order: object) -> bool:
    return isinstance(order, dict) and order.get("private") is True


def _meant_private(order: object) -> bool:
    """An order that asks to be private with any value but false: ``"private": "yes"`` is refused
    (FF 7), but revealed in a sealed round (FF 8) it is recorded before it is refused, and is then
    hidden as a private note is, erring on the hidden side."""
    return isinstance(order, dict) and order.get("private", False) is not False


def _concealed(data: dict, field: str) -> bool:
    """Whether ``field`` was concealed when its line was recorded (a format-2 game)."""
    salts = data.get(chain.CONCEALED)
    return isinstance(salts, dict) and field in salts


# FF 7: a private note is seen by its author (and umpires) only; the others see that its seat gave
# an order, not what it says, nor (revealed in a round of sealed orders, FF 8) the salt that opens
# its round's commitment, nor why it was refused. A revealed or refused order meant private (above)
# is concealed when recorded and hidden where it was; a line recorded before that stays as it was
# (hiding it now would not unsay it, and would stop its copies verifying).
def _secrets(recording: bool) -> Secrets:
    """The table of FF 7's secrets: read (``recording`` False: what a viewer may not see) or
    recording (what is concealed when the line is recorded). They differ in one clause: an order
    meant private but not a private note is concealed when recorded, and hidden only where it was."""
    def hidden(order: object, data: dict, field: str) -> bool:
        return _private(order) or (_meant_private(order) and (recording or _concealed(data, field)))

    return Secrets(
        Private("OrderAccepted", ORDER_FIELDS, when=lambda d: _private(d["order"])),
        Private("OrderRevealed", ("orders", "salt"),
                when=lambda d: isinstance(d["orders"], list) and any(hidden(o, d, "orders") for o in d["orders"])),
        Private("SealedOrderRefused", ("order", "reason"), when=lambda d: hidden(d["order"], d, "order")),
    )


SECRETS = _secrets(recording=False)
RECORDED_SECRETS = _secrets(recording=True)

COMPARE = {">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt, "==": operator.eq}


def _text(order: dict, key: str, rule: str, *, required: bool = False, default: str = "") -> str:
    value = order.get(key, default)
    if value is None:
        value = default
    if not isinstance(value, str):
        raise InvalidOrder(f"'{key}' must be text", rule=rule, field=key)
    most = MAX_TEXT.get(key, MAX_LABEL)
    if len(value) > most:
        raise InvalidOrder(f"'{key}' is longer than {most} characters", rule=rule, field=key)
    if required and not value.strip():
        raise InvalidOrder(f"'{key}' is required", rule=rule, field=key)
    return value


def _int(value: Any, key: str, rule: str, most: int | None = None) -> int:
    """A whole number; with ``most``, within ±most."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidOrder(f"'{key}' must be a whole number", rule=rule, field=key)
    if most is not None and not -most <= value <= most:
        raise InvalidOrder(f"'{key}' is a whole number from {-most:,} to {most:,}", rule=rule, field=key)
    return value


def _name(value: Any) -> bool:
    """A side's or a phase's name: 1 to MAX_NAME printable characters on one line."""
    return isinstance(value, str) and bool(value.strip()) and len(value) <= MAX_NAME and value.isprintable()


class Freeform(Ruleset):
    name = "freeform"
    title = "Freeform: any wargame, server dice and a verifiable log"
    prefix = "FF"
    sequence_rule = "FF 2"
    take_back_rule = "FF 6"
    pass_rule = "FF 2"  # a late seat's pass is "advance" (domain/clock.py TC 4)
    end_rule = "FF 5"

    # ------------------------------------------------------------------------------ setup --
    def setup(self, scenario: str | None, options: dict) -> Setup:
        sides = options.get("sides", ["A", "B"])
        if not isinstance(sides, list) or not 1 <= len(sides) <= MAX_SIDES or not all(map(_name, sides)):
            raise InvalidSetup(f"FF 1: 'sides' is a list of 1 to {MAX_SIDES} names of at most {MAX_NAME} "
                               "printable characters on one line")
        sides = [s.strip() for s in sides]
        if len(set(sides)) != len(sides):
            raise InvalidSetup("FF 1: side names must differ")
        if RESERVED_SEATS & set(sides):
            raise InvalidSetup(f"FF 1: {', '.join(sorted(RESERVED_SEATS & set(sides)))} cannot name a side")
        phases = options.get("phases", ["Turn"])
        if not isinstance(phases, list) or not 1 <= len(phases) <= MAX_PHASES or not all(map(_name, phases)):
            raise InvalidSetup(f"FF 2: 'phases' is a list of 1 to {MAX_PHASES} phase names of at most {MAX_NAME} "
                               "printable characters on one line")
        if len(set(phases)) != len(phases):  # a phase is found by its name when the game advances
            raise InvalidSetup("FF 2: phase names must differ")
        last_turn = options.get("last_turn")
        if last_turn is not None and (isinstance(last_turn, bool) or not isinstance(last_turn, int)
                                      or not 1 <= last_turn <= MAX_LAST_TURN):
            raise InvalidSetup(f"FF 2: 'last_turn' is a whole number from 1 to {MAX_LAST_TURN}")
        vp_track = options.get("vp_track", True)
        if not isinstance(vp_track, bool):
            raise InvalidSetup("FF 4: 'vp_track' is true or false")
        sealed = options.get("sealed_orders", False)
        if not isinstance(sealed, bool):
            raise InvalidSetup("FF 8: 'sealed_orders' is true or false")
        unknown = set(options) - {"sides", "phases", "last_turn", "vp_track", "sealed_orders"}
        if unknown:
            raise InvalidSetup(f"unknown freeform options: {', '.join(sorted(unknown))}")
        state = core.base_state(sides, phases, vp_sides=sides if vp_track else [])
        state["vp_track"] = vp_track
        state["last_turn"] = last_turn
        opts = {"sides": sides, "phases": phases, "last_turn": last_turn, "vp_track": vp_track}
        if sealed:  # recorded only when set, so the options of other games stay as they were
            opts["sealed_orders"] = True
        return Setup(seats=sides, state=state, scenario=scenario or "freeform", options=opts)

    # ------------------------------------------------------------------------------ orders --
    def order_kinds(self) -> list[dict]:
        return [dict(k) for k in ORDER_KINDS]

    def legal_orders(self, state: dict, seat: str) -> list[dict]:
        if state.get("ended") or seat not in state["sides"]:
            return []
        orders: list[dict] = [
            {"kind": "note", "rule": "FF 2", "fields": {"text": f"text (at most {MAX_TEXT['text']} characters)",
                                                       "fields": "object (optional)",
                                                       "private": "true for a hidden note (FF 7) (optional)"}},
            {"kind": "roll", "rule": "FF 3", "fields": {
                "dice": "NdS | dS | d66", "purpose": f"text (at most {MAX_TEXT['purpose']} characters)",
                "rule": "text (optional)",
                "units": "list (optional)", "target": "{compare, value, modifiers} (optional)",
                "replaces": "seq of the last roll (optional)",
                "sealed": "true for a sealed roll (FF 9) (optional)"}},
        ]
        mine = [int(seq) for seq, roller in state.get("sealed_rolls", {}).items() if roller == seat]
        if mine:  # FF 9: the seat's sealed rolls not shown yet
            orders.append({"kind": "show", "rule": "FF 9", "fields": {"roll": mine}})
        if state.get("vp_track"):
            orders.append({"kind": "vp", "rule": "FF 4", "fields": {
                "side": list(state["vp"]), "delta": f"non-zero whole number from {-MAX_VP:,} to {MAX_VP:,}",
                "reason": f"text (at most {MAX_TEXT['reason']} characters)"}})
        if not self._at_last_phase_of_last_turn(state):
            orders.append({"kind": "advance", "rule": "FF 2", "fields": {}})
        orders.append({"kind": "end", "rule": "FF 5", "fields": {
            "winner": [*state["sides"], None], "level": "text (optional)",
            "reason": f"text (at most {MAX_TEXT['reason']} characters)"}})
        return orders

    def decide(self, state: dict, seat: str, order: dict, dice: Any) -> list:
        kind = order.get("kind")
        if kind not in KINDS:
            raise unknown_kind(kind, KINDS, self.sequence_rule, listed="must be one of")
        # Never recorded in silence: a misspelt "private" would show a hidden note (FF 7).
        known_fields(order, sorted(FIELDS[kind]), RULE_OF[kind], kind, words=(), accepted=("kind", "private"))
        if kind != "note" and _meant_private(order):  # its outcome would be public all the same
            hint = "; a roll hidden until the end is \"sealed\": true (FF 9)" if kind == "roll" else ""
            raise InvalidOrder(f"only a note is private; a {kind} and what it records are public{hint}",
                               rule="FF 7", field="private")
        return getattr(self, "_" + kind)(state, seat, order, dice)

    def _note(self, state: dict, seat: str, order: dict, dice: Any) -> list:
        _text(order, "text", "FF 2", required=True)
        if "fields" in order and not isinstance(order["fields"], dict):
            raise InvalidOrder("'fields' must be a JSON object", rule="FF 2", field="fields")
        if not isinstance(order.get("private", False), bool):
            raise InvalidOrder("'private' is true or false", rule="FF 7", field="private")
        return []

    # ---------------------------------------------------------------------- sealed orders --
    def sealed_phase(self, state: dict, options: dict) -> dict | None:
        """FF 8: with ``sealed_orders``, every round is sealed, for every side, until the end."""
        if options.get("sealed_orders") and not state.get("ended"):
            return {"rule": "FF 8", "seats": list(state["sides"])}
        return None

    # ------------------------------------------------------------------------- hidden ------
    def concealable(self, event_type: str, data: dict) -> tuple[str, ...]:
        return RECORDED_SECRETS.concealable(event_type, data)

    def hidden_fields(self, event_type: str, data: dict, viewer: str | None) -> set[str]:
        return SECRETS.hidden_fields(event_type, data, viewer)

    def _roll(self, state: dict, seat: str, order: dict, dice: Any) -> list:
        try:
            expr = dicemod.parse(order.get("dice"))
        except ValueError as exc:
            raise InvalidOrder(str(exc), rule="FF 3", field="dice") from None
        purpose = _text(order, "purpose", "FF 3", required=True)
        rule = _text(order, "rule", "FF 3") or None
        units = order.get("units", [])
        if (not isinstance(units, list) or len(units) > MAX_UNITS
                or not all(isinstance(u, str) and len(u) <= MAX_LABEL for u in units)):
            raise InvalidOrder(f"'units' is a list of at most {MAX_UNITS} unit names of at most {MAX_LABEL} "
                               "characters", rule="FF 3", field="units")
        replaces = order.get("replaces")
        if replaces is not None:
            replaces = _int(replaces, "replaces", "FF 3")
            last = state.get("last_roll")
            if last is None or last["seq"] != replaces:
                raise RuleViolation("FF 3", f"a re-roll replaces the last roll (seq "
                                            f"{last['seq'] if last else 'none yet'}), not seq {replaces}")
        target = self._target(order.get("target"))
        sealed = order.get("sealed", False)
        if not isinstance(sealed, bool):
            raise InvalidOrder("'sealed' is true or false", rule="FF 9", field="sealed")
        if sealed and not dice.sealable:
            raise RuleViolation("FF 9", "this game has no sealed dice stream (a game created before sealed "
                                        "rolls existed rolls every die in the open)")
        made = dice.roll(expr.count, expr.sides, seat=seat, purpose=purpose, rule=rule,
                         units=units, replaces=replaces, notation=str(expr), sealed=sealed)
        if target is not None:
            result = self._read(expr, made.values) + sum(m["value"] for m in target["modifiers"])
            met = COMPARE[target["compare"]](result, target["value"])
            made.resolve(target={**target, "result": result}, outcome="success" if met else "failure")
        return [made]

    def _show(self, state: dict, seat: str, order: dict, dice: Any) -> list:
        seq = _int(order.get("roll"), "roll", "FF 9")
        roll = dice.sealed_roll(seq)
        if roll is None:
            raise RuleViolation("FF 9", f"seq {seq} is not a sealed roll of this game")
        if roll["seat"] != seat:
            raise RuleViolation("FF 9", f"only the seat that made a sealed roll shows it; seq {seq} is {roll['seat']}'s")
        if roll["public"]:
            raise RuleViolation("FF 9", f"the sealed roll at seq {seq} is already public")
        return [dice.show(seq, rule="FF 9")]

    @staticmethod
    def _read(expr: dicemod.DiceExpr, values: list[int]) -> int:
        return values[0] * 10 + values[1] if expr.ordered else sum(values)

    @staticmethod
    def _target(target: Any) -> dict | None:
        if target is None:
            return None
        if not isinstance(target, dict):
            raise InvalidOrder("'target' is an object {compare, value, modifiers}", rule="FF 3", field="target")
        compare = target.get("compare", ">=")
        if not isinstance(compare, str) or compare not in COMPARE:  # a list or an object is not hashable
            raise InvalidOrder(f"'target.compare' is one of {' '.join(COMPARE)}", rule="FF 3", field="target")
        value = _int(target.get("value"), "target.value", "FF 3", MAX_TARGET)
        modifiers = target.get("modifiers", [])
        if not isinstance(modifiers, list) or len(modifiers) > MAX_MODIFIERS or not all(
                isinstance(m, dict) and isinstance(m.get("value"), int) and not isinstance(m.get("value"), bool)
                and -MAX_TARGET <= m["value"] <= MAX_TARGET
                and isinstance(m.get("reason", ""), str) and len(m.get("reason", "")) <= MAX_LABEL
                for m in modifiers):
            raise InvalidOrder(f"'target.modifiers' is a list of at most {MAX_MODIFIERS} {{value, reason}}, each "
                               f"value from {-MAX_TARGET:,} to {MAX_TARGET:,} and reason of at most {MAX_LABEL} "
                               "characters", rule="FF 3", field="target")
        return {"compare": compare, "value": value,
                "modifiers": [{"value": m["value"], "reason": m.get("reason", "")} for m in modifiers]}

    def _vp(self, state: dict, seat: str, order: dict, dice: Any) -> list:
        if not state.get("vp_track"):
            raise RuleViolation("FF 4", "this game has no VP track")
        side = order.get("side")
        if not isinstance(side, str) or side not in state["vp"]:
            raise InvalidOrder(f"'side' is one of {', '.join(state['vp'])}", rule="FF 4", field="side")
        delta = _int(order.get("delta"), "delta", "FF 4", MAX_VP)
        if delta == 0:
            raise InvalidOrder("'delta' may not be zero", rule="FF 4", field="delta")
        reason = _text(order, "reason", "FF 4", required=True)
        rule = _text(order, "rule", "FF 4") or "FF 4"
        total = state["vp"][side] + delta
        if not -MAX_VP <= total <= MAX_VP:
            raise RuleViolation("FF 4", f"the VP track runs from {-MAX_VP:,} to {MAX_VP:,}; {side} has "
                                        f"{state['vp'][side]:,}")
        return [(ev.VPScored, {"side": side, "delta": delta, "total": total, "reason": reason, "rule": rule})]

    def timeout_pass(self, state: dict, seat: str) -> dict | None:
        """FF 2: a seat that lets its deadline pass advances the game to the next phase."""
        return {"kind": "advance"}

    def _advance(self, state: dict, seat: str, order: dict, dice: Any) -> list:
        phases = state["phases"]
        at = phases.index(state["phase"])
        if at + 1 < len(phases):
            return [(ev.PhaseAdvanced, {"turn": state["turn"], "phase": phases[at + 1], "rule": "FF 2"})]
        if self._at_last_phase_of_last_turn(state):
            raise RuleViolation("FF 2", f"turn {state['turn']} is the last turn; end the game instead")
        return [(ev.TurnAdvanced, {"turn": state["turn"] + 1, "phase": phases[0], "rule": "FF 2"})]

    def _end(self, state: dict, seat: str, order: dict, dice: Any) -> list:
        winner = order.get("winner")
        if winner is not None and (not isinstance(winner, str) or winner not in state["sides"]):
            raise InvalidOrder(f"'winner' is one of {', '.join(state['sides'])} or null for a draw",
                               rule="FF 5", field="winner")
        level = _text(order, "level", "FF 5") or None
        reason = _text(order, "reason", "FF 5", required=True)
        return [(ev.GameEnded, {"winner": winner, "level": level, "reason": reason, "rule": "FF 5"})]

    @staticmethod
    def _at_last_phase_of_last_turn(state: dict) -> bool:
        return (state.get("last_turn") is not None and state["turn"] >= state["last_turn"]
                and state["phase"] == state["phases"][-1])
