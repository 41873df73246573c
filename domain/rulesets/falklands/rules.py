"""Falklands Showdown: the ruleset (contract in domain/rulesets/__init__.py).

Orders (docs/rulesets.md gives every field):
    {"kind": "setup", "submarines": {"spartan": "sa6", "splendid": "sa7"}}      FS 3.3
    {"kind": "operation", "op": 20, ...the op's choices...}                      FS 7.1
    {"kind": "operation", "op": "exocet", "target": "sheffield"}                 FS 11.3 6-4
    {"kind": "pass"}                   no operation this phase (a UK pass still spends one, FS 5.3)
    {"kind": "submarines", "moves": {"conqueror": "sa7"}}                        FS 8.1
    {"kind": "decide", "decision": "<id>", "choice": {...}}                      a pending decision
"""

from __future__ import annotations

from itertools import islice
from typing import Any

from domain import events as ev
from domain.errors import InvalidOrder, InvalidSetup, RuleViolation
from domain.events import event_data
from domain.rulesets import Ruleset, Setup
from domain.rulesets.core import json_copy
from domain.rulesets.falklands import flow, randomevents  # noqa: F401  (registers steps)
from domain.rulesets.falklands import rulebook
from domain.rulesets.falklands import events as fe
from domain.rulesets.falklands import narrate
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.choices import (
    decision_fields, example_candidates, field_names, op_choices, template_fields, under_panache,
    under_poor_logistics, under_staff_work, with_target_of_opportunity,
)
from domain.rulesets.falklands.combat import LEADER_MARKER
from domain.rulesets.falklands.data import DATA
from domain.rulesets.falklands.hooks import asked_again, new_ctx, resume
from domain.rulesets.falklands.ops import AIR_ONLY, OPS, TITLES, air_only, area_name, name, restriction, rule
from domain.rulesets.toolkit.engine import Ctx, answer, known_fields, need, run, unknown_kind

UK, AR = S.UK, S.AR
OP_NUMBERS = [*range(1, 26), "exocet"]
NAMES = {**{m: d["name"] for m, d in DATA.markers.items()}, **{a: d["name"] for a, d in DATA.areas.items()},
         **{u: d["name"] for u, d in DATA.units.items()},
         **{marker: DATA.markers[f"{side.lower()}_leader"]["name"] for side, marker in LEADER_MARKER.items()}}


# The order kinds, for clients (``order_kinds``); ``head`` is a legal order's first line, formatted
# with its template; the first entry whose ``when`` matches the template is used.
ORDER_KINDS = (
    {"kind": "setup", "rule": "FS 3.3", "help": "the UK places Spartan and Splendid in the TEZ",
     "fields": {"submarines": "{submarine: sea area}"}},
    {"kind": "operation", "rule": "FS 11.3 6-4", "when": {"op": "exocet"}, "head": "operation exocet: {title}",
     "help": "the land-launched Exocet of event 6-4", "fields": {"op": "\"exocet\"", "target": "a UK ship"}},
    {"kind": "operation", "rule": "FS 7.1", "head": "operation Op #{op}: {title}",
     "help": "conduct one of the 25 operations; its fields are the operation's choices (warlog legal)",
     "fields": {"op": "the operation's number, 1-25; the other fields are its choices, as warlog legal lists them"}},
    {"kind": "pass", "rule": "FS 5.3", "help": "conduct no operation (a UK pass still spends one)", "fields": {}},
    {"kind": "submarines", "rule": "FS 8.1",
     "help": "move none, one, some or all of your submarines: 'moves' names those that move (none: no moves)",
     "fields": {"moves": "{submarine: sea area}"}},
    {"kind": "decide", "rule": "FS 5.2", "help": "answer the decision the game waits for",
     "fields": {"decision": "its id", "choice": "the answer (warlog legal shows its fields)"}},
)


# The fields of each kind but `operation` (whose fields are its operation's, choices.field_names);
# a template's words for readers (`title`, `rule`, `note`) may come back with the order.
ORDER_FIELDS = {"setup": {"submarines"}, "pass": set(), "submarines": {"moves"}, "decide": {"decision", "choice"}}
KIND_RULES = {"setup": "FS 3.3", "pass": "FS 5.3", "submarines": "FS 8.1", "decide": "FS 5.2"}
WORDS = {"kind", "title", "rule", "note"}
# The fields of each decision's answer (docs/rulesets.md, "Pending decisions").
CHOICE_FIELDS = {"defensive_fire": {"fire"}, "interception": {"fire"}, "carrier_shot": {"at"}, "leadership": {"reroll"},
                 "emergency_rebase": {"destinations"}, "free_attack": {"area", "units", "carriers", "aircraft", "fire",
                                                                      "target"},
                 "sf_compromised": {"unit"}, "peru_replacement": {"unit"}, "exocet": {"target"}}

# The fields an answer must give: a defensive fire or an interception its "fire" ({"fire": []} lets
# an interception pass), a leader its "reroll" (null keeps the dice), an emergency rebasing its
# "destinations", a carrier's shot its "at"; an empty answer is refused, not read as "auto", "pass" or "keep".
REQUIRED_CHOICE = {"defensive_fire": {"fire"}, "interception": {"fire"}, "carrier_shot": {"at"}, "leadership": {"reroll"},
                   "emergency_rebase": {"destinations"}}


EXAMPLE_TRIES = 60  # candidate orders tried per operation offered (choices.example_candidates)


class _Checked(Exception):
    """An order under trial got as far as rolling a die: every check before it passed."""


class _TrialDice:
    """Dice for trying an order on a copy of the state: the first roll ends the trial."""

    def roll(self, *args: Any, **kwargs: Any):
        raise _Checked

    def close_epoch(self) -> None:
        pass


def _takes(state: dict, seat: str, order: dict) -> bool:
    """Does the server take ``order`` from ``seat`` now (FS 7.1)? Tried on a copy of the state,
    up to its first roll."""
    try:
        Falklands().decide(json_copy(state), seat, order, _TrialDice())
    except _Checked:
        return True
    except (InvalidOrder, RuleViolation):
        return False
    return True


def _op_number(value: Any):
    if value == "exocet":
        return value
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 25:
        raise InvalidOrder("'op' is an operation number 1-25 (or \"exocet\")", rule="FS 7.1", field="op")
    return value


def free_operation(state: dict, seat: str) -> bool:
    """FS 11.3 1-1: two for the price of one. The first of the two UK operations is free, so with
    one operation left the UK still conducts both before the game ends (FS 5.3)."""
    po = state["phase_ops"]
    return seat == UK and po.get("free", 0) > 0 and po["done"] == 0



def _setup_wrong(subs: list[str], placing: Any) -> str | None:
    """What a set-up's 'submarines' leaves out or gets wrong (FS 3.3), in the game's names; None when
    it maps each submarine set up in the TEZ, and only those, to an area id."""
    if not isinstance(placing, dict):
        return "is an object {submarine: sea area}"
    if set(placing) - set(subs):
        return (f"places only {', '.join(name(u) for u in subs)}; "
                f"not {', '.join(sorted(map(str, set(placing) - set(subs))))}")
    if set(subs) - set(placing):
        return f"gives no TEZ sea area for {', '.join(name(u) for u in subs if u not in placing)}"
    odd = [name(u) for u in subs if not isinstance(placing[u], str)]
    return f"gives {', '.join(odd)} no sea area id" if odd else None


class Falklands(Ruleset):
    name = "falklands"
    title = "Falklands Showdown: The 1982 Anglo-Argentine War"
    prefix = "FS"
    sequence_rule = "FS 5.2"
    take_back_rule = "FS 5.1"
    end_rule = "FS 4"
    concede_rule = "FS 4.3"  # Surrender
    vp_note = "positive favours the AR, zero or negative the UK: FS 4.1, 4.6"  # one signed track
    unit_of_play = "operation"  # FS 7.1: each player carries out operations
    text_file = rulebook.TEXT_FILE  # its rule numbers: falklands/rulebook.py
    # FS 6.6 No Fog of War: no ``view`` of its own, so every seat sees the whole state (Ruleset.view).

    def rule_numbers(self, text: str) -> list[str]:
        return rulebook.rule_numbers(text)

    # ------------------------------------------------------------------------------ setup --
    def setup(self, scenario: str | None, options: dict) -> Setup:
        if scenario not in (None, "standard"):  # a typo must not be recorded as the game's scenario
            raise InvalidSetup(f"Falklands Showdown has one scenario, 'standard', not {scenario!r}")
        unknown = set(options) - {"uk_operations", "bids"}
        if unknown:
            raise InvalidSetup(f"unknown falklands options: {', '.join(sorted(unknown))} "
                               "(known: uk_operations, bids)")
        most = DATA.markers["uk_operations"]["start"]  # FS 3.5: the marker "in the \"30\" box" (units.json markers)
        count = options.get("uk_operations", most)
        bids = options.get("bids")
        if bids is not None:
            if (not isinstance(bids, list) or len(bids) != 2
                    or not all(isinstance(b, int) and not isinstance(b, bool) and 1 <= b <= 30 for b in bids)):
                raise InvalidSetup("FS 4.7: 'bids' is the two players' secret numbers, each 1 to 30")
            if "uk_operations" in options and options["uk_operations"] != min(bids):
                raise InvalidSetup("FS 4.7: the lower bid is the UK operation count; give bids or uk_operations")
            count = min(bids)
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= most:
            raise InvalidSetup(f"FS 4.7 / 3.5: 'uk_operations' is a whole number from 1 to {most} (default {most})")
        opts = {"uk_operations": count, **({"bids": bids} if bids is not None else {})}
        return Setup(seats=[UK, AR], state=S.initial(count), scenario="standard", options=opts)

    def check_position(self, state: dict) -> None:
        """A named position (data/positions/): the generic checks, then every unit of the order of
        battle and no other, and a phase of the turn sequence (FS 5)."""
        super().check_position(state)
        if set(state["units"]) != set(DATA.units):
            units, known = set(state["units"]), set(DATA.units)
            extra, missing = sorted(units - known), sorted(known - units)
            raise ValueError(f"the units are not the order of battle's (unknown: {extra[:5]}, missing: {missing[:5]})")
        if state["phase"] not in [S.SETUP_PHASE, *S.PHASES]:
            raise ValueError(f"{state['phase']!r} is no phase of FS 5")

    def board(self) -> dict:
        return DATA.board()

    def names(self) -> dict[str, str]:
        return NAMES

    def describe(self, event_type: str, data: dict) -> str | None:
        return narrate.describe(event_type, data)

    def order_kinds(self) -> list[dict]:
        return [dict(k) for k in ORDER_KINDS]

    # ------------------------------------------------------------------------------- fold --
    def evolve(self, state: dict | None, event: Any) -> dict:
        name = type(event).__name__
        if name == "GameCreated":
            return json_copy(event.setup)
        return S.fold(state, name, event_data(event), getattr(event, "originator_version", None))

    # ----------------------------------------------------------------------------- orders --
    def legal_orders(self, state: dict, seat: str) -> list[dict]:
        outside = self.orders_outside_operations(state, seat)
        if outside is not None:
            return outside
        orders = []
        with S.positions_indexed(state):
            for op in OP_NUMBERS:
                template = self.operation_template(state, seat, op)
                if template is not None:
                    orders.append(template)
        orders.append(self.pass_template(state, seat))
        return orders

    def orders_outside_operations(self, state: dict, seat: str) -> list[dict] | None:
        """What ``legal_orders`` offers when ``seat`` is not choosing an operation (a pending
        decision, the set-up, submarine movement, or nothing at all); None when it is: then the
        offer is each ``operation_template`` that is not None, and ``pass_template``."""
        if state.get("ended") or seat not in (UK, AR):
            return []
        if state["pending"]:
            d = state["pending"][0]
            if d["seat"] != seat:
                return []
            return [{"kind": "decide", "decision": d["id"], "decision_kind": d["kind"], "rule": d["rule"],
                     "prompt": d["prompt"], "options": d["options"], "fields": decision_fields(d)}]
        phase = state["phase"]
        if S.PHASE_SIDE.get(phase) != seat:
            return []
        if phase == S.SETUP_PHASE:
            subs = [u for u, d in DATA.units.items() if d.get("setup") == "tez"]
            return [{"kind": "setup", "rule": "FS 3.3", "submarines": {u: sorted(DATA.tez) for u in subs}}]
        if phase.endswith("Submarine"):
            moves = {u: self._sub_destinations(state, u) for u in S.units_in_any(state, side=seat, classes=["submarine"])
                     if S.where(state, u)}
            return [{"kind": "submarines", "rule": "FS 8.1", "moves": moves}]
        return None

    @staticmethod
    def operation_template(state: dict, seat: str, op) -> dict | None:
        """Operation ``op`` as ``legal_orders`` offers it to ``seat`` (when
        ``orders_outside_operations`` is None), or None when it is not offered: Op #10 is tacked
        onto an attack and Op #11 answers an AR air operation (FS 7.1), a restriction forbids it
        (``ops.restriction``), or it has nothing to act on now."""
        if op == 11 or op == 10 or restriction(state, seat, op):
            return None
        choices = under_staff_work(state, seat, op, op_choices(state, seat, op))  # FS 11.3 1-6
        choices = under_poor_logistics(state, seat, op, choices)  # FS 11.3 5-1
        choices = under_panache(state, seat, op, choices)  # FS 11.3 5-6
        choices = with_target_of_opportunity(state, seat, op, choices)  # FS 11.3 3-2
        if choices is None:
            return None
        # FS 7.1 Op #10 "may be chosen only once per game": not offered again once used
        fields = template_fields(op, choices, seat)
        if state.get("op10_used"):
            fields.pop("with_op_10", None)
        # a whole order the operation takes (for a command line): the first of its candidates the
        # operation's own checks accept; with none, the side cannot conduct it now (capacities,
        # ranges, stacking the choices leave out) and it is not offered
        example = next((e for e in islice(example_candidates(state, seat, op, choices), EXAMPLE_TRIES)
                        if _takes(state, seat, {"kind": "operation", "op": op, **e})), None)
        if example is None:
            return None
        return {"kind": "operation", "op": op, "title": TITLES[op], "rule": rule(op),
                "choices": choices, "fields": fields, "example": example}

    @staticmethod
    def pass_template(state: dict, seat: str) -> dict:
        """A pass (FS 5.3). It spends a UK operation, except the free first of two under 1-1."""
        note = "no operation this phase"
        if seat == UK:
            note += " (free: the first of 1-1's two operations)" if free_operation(state, seat) \
                else " (it still spends a UK operation)"
        return {"kind": "pass", "rule": "FS 5.3", "note": note}

    @staticmethod
    def _sub_destinations(state: dict, uid: str) -> list[str]:
        side = DATA.units[uid]["side"]
        out = [*DATA.sea_areas, S.SOUTH_GEORGIA]
        if side == AR:
            out.append(S.ARGENTINA)
        return [a for a in out if a != S.where(state, uid)]

    def decide(self, state: dict, seat: str, order: dict, dice: Any) -> list:
        kind = order.get("kind")
        ctx = new_ctx(state, dice)
        if state["pending"]:
            d = state["pending"][0]
            need(kind == "decide", d["rule"], f"answer the pending decision first: {d['prompt']}")
        handler = {"decide": self._decide, "setup": self._setup, "operation": self._operation,
                   "pass": self._operation, "submarines": self._submarines}.get(kind) if isinstance(kind, str) else None
        if handler is None:
            raise unknown_kind(kind, ["operation", "pass", "submarines", "decide", "setup"], self.sequence_rule)
        if kind != "operation":
            known_fields(order, sorted(ORDER_FIELDS[kind]), KIND_RULES[kind], kind, WORDS)
        handler(ctx, seat, order)
        return ctx.out

    def restore(self, before: dict, now: dict) -> dict:
        """FS 5.1: the decisions waiting again after a take-back of their answer get ids of their own
        (hooks.asked_again), and the ids they had join those taken back: an answer sent before the
        take-back (a duplicate of the one taken back, under another key) is refused saying so, not
        taken for the decision asked again. Games recorded before kept the ids in their events."""
        if not before.get("pending"):
            return before
        k = now.get("take_backs", 0) + 1
        withdrawn = [p["id"] for p in before["pending"]]
        return {**before, "pending": [{**p, "id": asked_again(p["id"], k)} for p in before["pending"]],
                "taken_back_decisions": [*now.get("taken_back_decisions", []), *withdrawn]}

    def _decide(self, ctx: Ctx, seat: str, order: dict) -> None:
        pending = ctx.state["pending"]
        named = order.get("decision")
        # An answer sent before a take-back, for a decision the order taken back had asked: say so,
        # since a decision asked again in its place has another id (hooks.ask).
        taken_back = (f"decision {named!r} was taken back ({self.take_back_rule}) with the order that asked it; "
                      if isinstance(named, str) and named in ctx.state.get("taken_back_decisions", ()) else "")
        need(bool(pending), self.sequence_rule, f"{taken_back}no decision is waiting")
        d = pending[0]
        if named != d["id"]:
            raise InvalidOrder(f"{taken_back}the decision waiting is {d['id']!r}", rule=d["rule"], field="decision")
        choice = order.get("choice", {})
        if choice is not None and not isinstance(choice, dict):  # a word ("x") is no answer's default
            raise InvalidOrder("'choice' is a JSON object", rule=d["rule"], field="choice")
        known = CHOICE_FIELDS.get(d["kind"])
        unknown = sorted(set(choice) - known) if isinstance(choice, dict) and known is not None else []
        if unknown:  # "destination" for "destinations", or a "decline" FS 11.2 forbids: never taken in silence
            raise RuleViolation(d["rule"], f"'{unknown[0]}' is not a field of the {d['kind']} answer (its fields: "
                                           f"{', '.join(sorted(known))})")
        missing = sorted(REQUIRED_CHOICE.get(d["kind"], set()) - set(choice or {}))
        if missing:  # an answer without its field is no answer: never read as the field's default
            raise InvalidOrder(f"the {d['kind']} answer gives '{missing[0]}' (docs/rulesets.md, Pending decisions)",
                               rule=d["rule"], field="choice")
        if d["kind"] in ("defensive_fire", "interception") and not (choice["fire"] == "auto"
                                                                    or isinstance(choice["fire"], list)):
            raise InvalidOrder("'fire' is a list of {unit, at}, or \"auto\"", rule=d["rule"], field="choice")
        stack = json_copy(d["context"]["stack"])
        resume(ctx, d["id"])  # its decisions' ids count on from the one answered
        answer(stack, choice if choice is not None else {})
        ctx.emit(ev.DecisionResolved, decision_id=d["id"], seat=seat, choice=choice)
        run(ctx, stack)

    def _setup(self, ctx: Ctx, seat: str, order: dict) -> None:
        need(ctx.state["phase"] == S.SETUP_PHASE, "FS 3.3", "set-up is over")
        subs = [u for u, d in DATA.units.items() if d.get("setup") == "tez"]
        placing = order.get("submarines")
        wrong = _setup_wrong(subs, placing)
        tez = ", ".join(f"{area_name(a)} ({a!r})" for a in sorted(DATA.tez, key=area_name))  # the id to type, quoted
        if wrong:
            raise InvalidOrder(f"'submarines' {wrong}: each of {', '.join(map(name, subs))} is placed in "
                               f"one of the TEZ sea areas ({tez})", rule="FS 3.3", field="submarines")
        for u, area in placing.items():
            need(area in DATA.tez, "FS 3.3", f"{name(u)} is placed in one of the TEZ sea areas ({tez})"
                                            f"{DATA.meant(area, 'areas')}")
        for u in subs:
            ctx.emit(ev.UnitMoved, unit=u, origin=None, destination=placing[u], rule="FS 3.3")
        ctx.emit(ev.PhaseAdvanced, turn=1, phase=S.PHASES[0], rule="FS 5.2")

    def _operation(self, ctx: Ctx, seat: str, order: dict) -> None:
        phase = ctx.state["phase"]
        need(not (order.get("kind") == "pass" and phase == f"{seat} Submarine"), "FS 8.1",
             "no pass in your Submarine Phase: to move no submarine, order 'submarines' with no moves")
        need(phase == f"{seat} Operations", self.sequence_rule, f"operations are chosen in your Operations Phase, not the {phase} phase")
        free = free_operation(ctx.state, seat)
        if order.get("kind") == "pass":
            ctx.emit(fe.OperationBegun, side=seat, op="pass", title="no operation", rule="FS 5.3", free=free)
            run(ctx, [{"step": "after_op", "side": seat, "op": "pass", "free": free}])
            return
        op = _op_number(order.get("op"))
        # with_op_10 is taken by any operation and refused below under Op #10 where it rides on none,
        # so the list of fields names it only for the UK attacks it rides on
        listed = field_names(op) | {"op"}
        if not (seat == UK and op in (14, 18, 20)):
            listed.discard("with_op_10")
        known_fields(order, sorted(listed), rule(op), f"Op #{op}" if op != "exocet" else "exocet", WORDS,
                     accepted=("with_op_10",))
        why = restriction(ctx.state, seat, op)
        if why:
            r, _, message = why.partition(": ")
            raise RuleViolation(r, message)
        if order.get("with_op_10") and not (op in (14, 18) or (op == 20 and order.get("attack") is True)):
            raise RuleViolation(rule(10), "Op #10 is tacked onto a UK attack on AR vessels (Op #14, #18, or #20 "
                                          "with an attack)")
        # FS 9.7: "no UK movement or combat may ever take place in that area" (Op #13 names a
        # Falklands airbase: its own rule says Argentina is none)
        if seat == UK and S.ARGENTINA in [order.get(k) for k in ("area", "origin", "destination")]:
            raise RuleViolation("FS 9.7", f"no UK movement or combat may ever take place in Argentina ({rule(op)})")
        if (seat == AR and "ar_air_panache" in ctx.state["effects"][AR] and ctx.state["phase_ops"]["done"] >= 1
                and not air_only(op, order)):  # restriction() knows the op, not that the 25 de Mayo flies it
            raise RuleViolation("FS 11.3 5-6", f"both operations of this phase must involve only aircraft: the "
                                               f"25 de Mayo is a ship ({rule(op)})")
        if seat == AR and order.get("attack") is True and "poor_ar_logistics" in ctx.state["effects"][AR]:
            raise RuleViolation("FS 11.3 5-1", f"no AR attack of any kind this Operations Phase ({rule(op)})")
        ctx.emit(fe.OperationBegun, side=seat, op=op, title=TITLES[op], rule=rule(op), free=free)
        frames = OPS[op](ctx, seat, order)
        ground_attack = op in (22, 24) and order.get("attack") is True
        stack = [{"step": "after_op", "side": seat, "op": op, "free": free, "ground_attack": ground_attack}]
        if op in AIR_ONLY and not air_only(op, order):  # FS 11.3 5-6: the 25 de Mayo flies it
            stack[0]["air_only"] = False
        stack.extend(reversed(frames))
        run(ctx, stack)

    def _submarines(self, ctx: Ctx, seat: str, order: dict) -> None:
        """FS 8.1-8.3: the side's submarines move in its Submarine Phase and attack nothing (8.2: the
        order has no field for it); they may move and fight again in an Operations Phase, at the
        cost of an operation there (8.3)."""
        phase = ctx.state["phase"]
        need(phase == f"{seat} Submarine", "FS 8.1", f"submarines move in your Submarine Phase, not the {phase} phase")
        moves = order.get("moves")
        moves = {} if moves is None else moves  # none moves (FS 8.1); 0, "" or [] is no map of moves
        if not isinstance(moves, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in moves.items()):
            raise InvalidOrder("'moves' maps submarine ids to sea areas", rule="FS 8.1", field="moves")
        for u, area in moves.items():
            need(u in DATA.units and DATA.units[u]["side"] == seat and DATA.units[u]["class"] == "submarine"
                 and S.alive(ctx.state, u) and S.where(ctx.state, u) is not None, "FS 8.1",
                 f"{name(u)} is not one of your submarines in play")
            # naming a boat with its own area moves it nowhere (FS 9.1, as test_refusal_names has it;
            # Op #20 says "the force is already there"), in port too: 9.7 lets AR vessels be there
            need(area != S.where(ctx.state, u), "FS 9.1",
                 f"{name(u)} is already in {area_name(area)}: name only the submarines that move")
            need(area in self._sub_destinations(ctx.state, u), "FS 9.1" if area != S.ARGENTINA else "FS 9.7",
                 f"{name(u)} cannot move to {area_name(area)}")
        for u, area in moves.items():
            ctx.emit(ev.UnitMoved, unit=u, origin=S.where(ctx.state, u), destination=area, rule="FS 8.1")
        stack: list = []
        flow.end_phase(ctx, stack)
        run(ctx, stack)

    def concession_winner(self, state: dict, seat: str) -> str | None:
        return AR if seat == UK else UK  # FS 4.3
