"""The attacker's view of the STF rules: orders that are well-formed JSON but wrong in value.

Random legal campaigns (the ruleset's own random Player, domain/rulesets/stf/play.py, with fixed
seeds as in test_play.py) are stopped at positions drawn with a fixed seed; there an order the
rules offer (legal_orders) has one field mutated: dropped, its type changed, a list item
duplicated, an id replaced with one of the GameSystem's, a sunk unit's, a unit of another task
force, an unknown id, a hex off the map, the same id in another case, an empty or very long list,
a negative, zero or huge number. The mutated order is decided on a copy of the position through
the path the game uses (``rules.decide`` as ``Game.submit`` calls it, with the game's Roller).

The property: the result is either accepted, or an InvalidOrder/RuleViolation naming a rule of the
text ("STF x.y"), never another exception; a refusal changes nothing; and a mutation that can
never name something legal (a wrong type, an unknown or wrongly cased id, a hex off the map, a
duplicated item) is never accepted.

The plain tests after it are the classes of failure the property found, each named after its rule.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from pathlib import Path
from uuid import UUID

import pytest

from domain.errors import InvalidOrder, RuleViolation
from domain.game import Game, Roller
from domain.rulesets.stf import play, rulebook


def _text_rules() -> set[str]:
    for folder in Path(__file__).resolve().parents:
        path = folder / "shared" / "rules" / rulebook.TEXT_FILE
        if path.exists():
            return set(rulebook.rule_numbers(path.read_text(encoding="utf-8")))
    return set()


TEXT_RULES = _text_rules()
NAMED = re.compile(r"STF (?:table: [^:]+?\)|table: [A-Za-z \-]+|\d+\.\d+(?:\.\d+)?)")
ANSWER_KINDS = ("declare", "decide")
LONG = 300


def seed_for(epoch: int) -> bytes:
    return hashlib.sha256(f"stf-mutate-{epoch}".encode()).digest()


# ---- the mutations ---------------------------------------------------------------------------
def ids_of(state: dict) -> dict[str, list[str]]:
    """Ids of the position an attacker may put in a field: the GameSystem's groups and units,
    sunk units, the Player's groups and units (each with its group), airbases."""
    groups, units = state.get("groups", {}), state.get("units", {})
    sunk = [u for u, x in units.items() if x.get("sunk") or groups.get(x.get("group"), {}).get("status") == "sunk"
            or x.get("status") == "sunk"]
    return {
        "system_groups": sorted(g for g, x in groups.items() if x.get("owner") == "system"),
        "system_units": sorted(u for u, x in units.items() if groups.get(x.get("group"), {}).get("owner") == "system"),
        "player_groups": sorted(g for g, x in groups.items() if x.get("owner") == "Player"),
        "player_units": sorted(u for u, x in units.items() if groups.get(x.get("group"), {}).get("owner") == "Player"),
        "sunk": sorted(sunk),
        "pool": sorted(state.get("pool", {}))[:3],
        "airbases": sorted(state.get("airbases", {})),
    }


def swaps(value: str, pool: dict[str, list[str]]) -> list[tuple[str, str, bool]]:
    """(label, replacement, never legal) for a string field's value."""
    out = [("unknown id", "ZZ-NOSUCH-9", True), ("empty string", "", True), ("hex off the map", "9999", False),
           ("hex off the map (negative)", "-101", False)]
    if value.upper() != value:
        out.append(("upper case", value.upper(), True))
    if value.lower() != value:
        out.append(("lower case", value.lower(), True))
    out.append(("padded", f" {value} ", True))
    for key, items in pool.items():
        for x in items[:2]:
            if x != value:
                out.append((key, x, False))
    return out


def mutations(order: dict, state: dict, rng: random.Random):
    """(label, mutated order, never legal) for each one-field change of ``order``, and each field
    of its kind the offer left out, added with an id of the position or an empty value."""
    pool = ids_of(state)
    from domain.rulesets.stf.rules import KINDS
    ids = [x for items in pool.values() for x in items[:1]]
    for key in KINDS[order["kind"]].fields:
        if key not in order:
            for lab, new in (("[id]", ids[:1]), ("[id, id]", ids[:1] * 2), ("{id: 1}", {i: 1 for i in ids[:1]}),
                             ("{id: {}}", {i: {} for i in ids[:1]}), ("id", (ids or ["x"])[0]), ("1", 1), ("-1", -1),
                             ("true", True), ("0", 0), ("empty string", ""), ("{}", {}), ("[]", [])):
                yield f"{key}: added {lab}", {**order, key: new}, False
    for key, value in order.items():
        if key == "kind":
            continue
        path = key
        yield f"{path}: dropped", {k: v for k, v in order.items() if k != key}, False
        for lab, new, bad in value_mutations(value, pool, rng):
            # a move's path of two hexes or more may come back to its first hex (STF 7.1 sets
            # no such limit): that duplicate can be legal, unlike any other list's
            if order.get("kind") == "move" and key == "path" and lab == "duplicated item" and len(value) > 1:
                bad = False
            yield f"{path}: {lab}", {**order, key: new}, bad
        if isinstance(value, list) and value and isinstance(value[0], dict):
            yield f"{path}[0]: a field it has not", {**order, key: [{**value[0], "extra": 1}, *value[1:]]}, True
            for inner_key, inner in value[0].items():
                for lab, new, bad in [("dropped", None, False)] + list(value_mutations(inner, pool, rng)):
                    item = {k: v for k, v in value[0].items() if k != inner_key} if lab == "dropped" else {**value[0], inner_key: new}
                    yield f"{path}[0].{inner_key}: {lab}", {**order, key: [item, *value[1:]]}, bad
        if isinstance(value, dict):
            for inner_key, inner in value.items():
                for lab, new, bad in value_mutations(inner, pool, rng):
                    yield f"{path}.{inner_key}: {lab}", {**order, key: {**value, inner_key: new}}, bad


def value_mutations(value, pool, rng):
    kinds = {str: "str", int: "int", bool: "bool", list: "list", dict: "dict", type(None): "null", float: "float"}
    here = kinds.get(type(value), "other")
    for name, new in (("str", "3"), ("int", 3), ("list", [value]), ("dict", {"v": value}), ("null", None),
                      ("bool", True), ("float", 2.5)):
        if name != here:
            # a null for a field the order may leave out is the same as leaving it out
            yield f"type {here} -> {name}", new, name in ("dict", "float") or (name == "list" and here != "null")
    for name, new in (("str", ""), ("int", 0), ("list", []), ("dict", {}), ("bool", False)):
        if name != here:  # an empty value of another type is not the field left out
            yield f"type {here} -> empty {name}", new, here != "null"
    if type(value) is int:
        for lab, new in (("negative", -1), ("zero", 0), ("huge", 10 ** 9), ("minus huge", -(10 ** 9))):
            if new != value:
                yield lab, new, False
    if isinstance(value, str):
        yield from swaps(value, pool)
    if isinstance(value, list):
        yield "empty list", [], False
        if value:
            yield "duplicated item", value + [value[0]], True
            yield "very long list", value * (LONG // len(value) + 1), True
            if isinstance(value[0], str):
                for lab, new, bad in swaps(value[0], pool):
                    yield f"[0] {lab}", [new, *value[1:]], bad
                    yield f"+ {lab}", [*value, new], bad
            if isinstance(value[0], int) and not isinstance(value[0], bool):
                yield "[0] negative", [-1, *value[1:]], False
        yield "list of nulls", [None], True


# ---- the property ----------------------------------------------------------------------------
def decide(game: Game, order: dict) -> list:
    """``order`` decided on ``game``'s position as Game.submit decides it (nothing is recorded)."""
    return game.rules.decide(game.state, "Player", order, Roller(game, seed_for, "mutant"))


def fingerprint(state: dict) -> str:
    return hashlib.sha256(json.dumps(state, sort_keys=True, default=str).encode()).hexdigest()


def check(game: Game, order: dict, label: str, never: bool, failures: list) -> None:
    try:
        decide(game, order)
    except (InvalidOrder, RuleViolation) as no:
        named = NAMED.findall(str(no))
        if not named or not all(n in TEXT_RULES for n in named):
            failures.append((label, order, f"refused naming no rule of the text: {no}"))
        return
    except Exception as crash:  # noqa: BLE001 - the property: nothing else is ever raised
        failures.append((label, order, f"crashed: {type(crash).__name__}: {crash}"))
        return
    if never:
        failures.append((label, order, "accepted"))


def probe(n: int, every: int, failures: list, seen_kinds: set) -> None:
    """Campaign ``n`` (fixed seeds): every ``every``-th Player order, an offered order is mutated."""
    g = Game.create("stf", game_id=UUID(int=0x57FA00 + n), seed_for=seed_for)
    g.join("Player", "player", f"p{n}", seed_for)
    rng, player, k = random.Random(1000 + n), play.RandomPlayer(random.Random(n)), 0
    while not g.is_ended:
        offered = [play.order_of(t) for t in g.rules.legal_orders(g.state, "Player")]
        mutable = [o for o in offered if o.get("kind") != "end_phase" and len(o) > 1]
        if mutable and k % every == 0:
            kind = rng.choice(sorted({o["kind"] for o in mutable}))
            base = rng.choice([o for o in mutable if o["kind"] == kind])
            seen_kinds.add(base["kind"])
            before = fingerprint(g.state)
            for label, mutant, never in mutations(base, g.state, rng):
                check(g, mutant, f"{base['kind']} {label}", never, failures)
            if fingerprint(g.state) != before:  # deciding, accepted or refused, records nothing
                failures.append((f"{base['kind']} mutants", base, "deciding changed the game's position"))
        for order in player.candidates(g.rules, g.state):
            before = g.state
            try:
                g.submit("Player", f"o{k}", order, seed_for)
            except (RuleViolation, InvalidOrder):
                continue
            player.accepted(before, order)
            k += 1
            break
        else:
            raise play.Stalled(f"campaign {n} stalled")


def run(games: range, every: int) -> tuple[list, set]:
    failures: list = []
    kinds: set = set()
    for n in games:
        probe(n, every, failures, kinds)
    return failures, kinds


def test_mutated_orders_are_accepted_or_refused_naming_a_rule_of_the_text():
    failures, kinds = run(range(4), 2)
    report = "\n".join(f"{label}: {why} {order}" for label, order, why in failures[:40])
    assert not failures, f"{len(failures)} failures:\n{report}"


# ---- one plain test for each kind of failure the property test found --------------------------------
def test_stf_13_11_a_squadron_fires_its_harpoon_waves_once():
    """STF 13.11: A-6s "conduct their ASM attacks by firing 3 waves of 8 Harpoon each": the Nimitz
    has one H squadron of A-6s, so a strike naming two A-6 entries recorded six waves for it."""
    from tests.unit.stf.test_air import player_strike_state
    from tests.unit.stf.helpers import play as play_order

    st = player_strike_state("precise")
    st["units"]["nimitz"]["aircraft"] = {"L": "F-14 Tomcat", "H": "A-6 Intruder"}  # its counter names them
    strike = {"kind": "air_strike", "from": "P1", "target": "TF1"}
    play_order(st, {**strike, "asm": [{"aircraft": "A-6 Intruder", "damage": 0}]})
    with pytest.raises(RuleViolation) as err:
        play_order(st, {**strike, "asm": [{"aircraft": "A-6 Intruder", "damage": 0}] * 2})
    assert err.value.rule == "STF 13.11" and "1 A-6 Intruder squadron(s) left" in str(err.value)
    with pytest.raises(InvalidOrder) as err:  # a misspelt key is refused, not read as no damage
        play_order(st, {**strike, "asm": [{"aircraft": "A-6 Intruder", "damag": 2}]})
    assert err.value.rule == "STF 13.11"


@pytest.mark.parametrize("field,value", [("sunk", 0), ("sunk", ""), ("sunk", False), ("hits", []), ("hits", 0)])
def test_stf_11_1_a_reports_value_of_the_wrong_type_is_refused_not_read_as_none(field, value):
    """A battle's report (the base game's results, STF 11.1's record): only a missing or null
    field means none; ``"sunk": 0`` was accepted as no ship sunk."""
    from tests.unit.stf.test_combat import battle
    from tests.unit.stf.helpers import play as play_order

    play_order(battle(), {"kind": "report", field: None})
    with pytest.raises(InvalidOrder) as err:
        play_order(battle(), {"kind": "report", field: value})
    assert err.value.rule == "STF 11.1" and err.value.field == field


def test_stf_1_14_a_group_with_a_key_it_does_not_have_is_refused():
    """STF 1.14 (leaders of task forces): ``"leaderr": "Captain"`` was dropped in silence, so the
    group took the best leader the rules allow instead of the one asked for."""
    from tests.unit.stf.test_examiner_rules_1_7 import counters, drawn, forces_state
    from tests.unit.stf.helpers import play as play_order

    st = drawn(forces_state(side="Soviet", points=14), 1)  # as test_stf_1_12_a_soviet_carriers_pcs_...
    ffs = counters("Soviet", "FF")[:3]
    _, st = play_order(st, {"kind": "buy", "units": ffs})
    carrier = st["campaign"]["player_carriers"][0]
    group = {"kind": "tf", "units": [carrier, *ffs]}
    play_order(st, {"kind": "form_groups", "groups": [group]})
    with pytest.raises(InvalidOrder) as err:
        play_order(st, {"kind": "form_groups", "groups": [{**group, "leaderr": "Captain"}]})
    assert err.value.rule == "STF 1.14"
