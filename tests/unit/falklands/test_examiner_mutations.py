"""Orders that are well-formed JSON but wrong in value (an examiner's property test, the
attacker's view): random legal games are played with the ruleset's own random player
(``play.candidates``, as tests/unit/falklands/test_fuzz.py drives them, fixed seeds), and at
each position the order the rules accepted is taken and one field of it mutated: dropped, its
type changed, an item of a list doubled, a list emptied or made very long, a number made zero or
negative, a unit or area id replaced by another side's unit, an eliminated or not yet arrived
unit, a unit elsewhere, an unknown id or the id in other case, or a field added that the kind
does not have. Each mutant is decided on a copy of the position, as ``Game.submit`` decides it.

The property: the mutant is accepted, or refused with InvalidOrder/RuleViolation naming a rule
number of the text (rulebook.rule_numbers), never any other exception; deciding changes nothing
of the position it was given (a refusal records nothing); and an accepted mutant is one the text
allows:
- an unknown id, an id in other case, a unit not in play (but where the order is about one:
  Op #2's unit, Op #6's ships, event 6-3's aircraft), a unit of the other side where the field
  names the side's own units (or of its own where it names a target), a value of a type the field
  never has, and ``"fire": []`` (FS 10.2: no unit withholds its fire; Op #11 interception aside)
  are refused, never dropped or read as a default;
- no unit fires more often in a battle than FS 10.2 / 10.9 let it;
- what follows keeps the text's limits: loads (FS 6.2, 6.5), airbase capacity (FS 6.2(3)(4),
  Op #9), no UK unit in Argentina (FS 9.7), AR units in South Georgia submarines only (FS 3.7,
  6.4), no AR aircraft left on a UK-held base (FS 6.3, 9.6);
- a decision it leaves pending can be answered with an answer the rules offer (the game is not
  stuck on an order it accepted).
"""

from __future__ import annotations

import hashlib
import json
import random
from uuid import UUID

import pytest

from domain.errors import InvalidOrder, RuleViolation
from domain.game import Game, Roll
from domain.rulesets.falklands import play as random_play
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.choices import decision_fields
from domain.rulesets.falklands.combat import can_fire_at
from domain.rulesets.falklands.data import DATA
from domain.rulesets.falklands.ops import check_loads, loads_after
from domain.rulesets.falklands.tables import UK_CARRIERS
from tests.unit.falklands.helpers import (
    AR, UK, R, FixedDice, answer, control, empty, events_of, fire, fold_all, fresh, initial, op, pending, place, play,
    set_phase, with_factor,
)

# Fixed, so every run plays the same games and tries the same mutants (a few seconds). To look
# further, raise them for a run: GAMES 10 with MUTANTS_PER_ORDER 1000 tries every mutant of every
# position (about a minute); SEED moves every game and every landing drive.
GAMES = 6
MUTANTS_PER_ORDER = 10
SEED = 0
NUMBERS = set(R.coverage()["rules"])  # every rule number of the text (tests/unit/test_rules_coverage.py)

# The JSON types a field's value may have (None: absent, for an optional field).
LIST, STR, DICT, BOOL, INT = list, str, dict, bool, int
TYPES = {
    "kind": (STR,), "op": (INT, STR), "decision": (STR,), "choice": (DICT,),
    "units": (LIST,), "aircraft": (LIST,), "carriers": (LIST,), "refuel": (LIST,), "ships": (LIST,),
    "wave": (LIST,), "bombard": (LIST,), "second_wave": (LIST,), "support": (LIST,),
    "area": (STR,), "origin": (STR,), "destination": (STR,), "airbase": (STR,), "unit": (STR,),
    "target": (STR,), "submarine": (STR,), "target_of_opportunity": (STR,),
    "fire": (LIST, STR), "bombard_fire": (LIST, STR), "attack": (BOOL,), "with_op_10": (BOOL,),
    "entry": (DICT,), "moves": (DICT,), "loads": (DICT,), "submarines": (DICT,), "destinations": (DICT,),
    "reroll": (INT,), "at": (STR,),
}
ENEMY_FIELDS = {"target", "at", "target_of_opportunity"}  # fields naming the other side's units


def seed_for(epoch: int) -> bytes:
    return hashlib.sha256(f"mutate-{epoch}".encode()).digest()


def copy_of(state: dict) -> dict:
    return json.loads(json.dumps(state))


def games() -> list[tuple[dict, str, dict]]:
    """(position, seat, the order the rules accepted there) along ``GAMES`` random legal games."""
    seen = []
    for n in range(GAMES):
        rng = random.Random(SEED + 1000 + n)
        g = Game.create("falklands", options={"uk_operations": rng.choice([6, 8, 12])}, game_id=UUID(int=5000 + n),
                        seed_for=seed_for)
        g.join("UK", "uk", f"u{n}", seed_for)
        g.join("AR", "ar", f"a{n}", seed_for)
        count = 0
        while not g.is_ended and count < 400:
            seat = g.whose_move()[0]
            for order in random_play.candidates(g.rules, g.state, seat, rng):
                before = copy_of(g.state)
                try:
                    g.submit(seat, f"o{count}", order, seed_for)
                except (RuleViolation, InvalidOrder):
                    continue
                seen.append((before, seat, order))
                count += 1
                break
    return seen


def landing(phase: str) -> dict:
    """A hand-made position random play seldom reaches: groups R1-R3 in, UK ships and carriers in
    the Falkland Islands Sea Area with troops aboard, UK units ashore in contested Goose Green and
    Mount Kent (SF of both sides there), AR ships, a submarine and aircraft on Falklands bases,
    the side to move holding its Decisive Leader marker, the land-launched Exocet held, and (for
    the AR) 3-2's target of opportunity."""
    st = fresh(phase, turn=4)
    st["groups_entered"] = ["R1", "R2", "R3"]
    st["ops_log"][UK] = [20, 20, 6, 20]
    st["uk_operations_left"] = 14
    for u, d in DATA.units.items():
        if d.get("group") in ("R1", "R2", "R3") and S.kind(u) in ("ship", "submarine"):
            place(st, u, "falklands" if d["type"] in ("A", "T") else "sa7")
    for u in ("hermes", "invincible", "glamorgan", "broadsword", "coventry", "antrim", "atlantic_conveyor"):
        place(st, u, "falklands")
    place(st, "sheffield", "sa6")
    for u, ship in (("3_para", "intrepid"), ("45_cdo", "intrepid"), ("42_cdo", "canberra"), ("b_r", "elk"),
                    ("sas_g", "antrim")):
        place(st, u, aboard=ship)
    place(st, "2_para", "goose_green")
    place(st, "sas_d", "mount_kent")
    place(st, "40_cdo", "teal_inlet", steps=1)
    control(st, UK, "teal_inlet")
    for u in ("drummond", "granville"):
        place(st, u, "falklands")
    place(st, "belgrano", "sa6")
    place(st, "santa_fe", "falklands")
    place(st, "a4_1", "port_stanley")
    place(st, "dagger_1", "pebble_island")
    side = S.PHASE_SIDE[phase]
    st["markers"][side] = [f"{side.lower()}_decisive_leader"]
    st["exocet"] = "held"
    if side == AR:
        st["effects"][AR]["ar_target_of_opportunity"] = {"event": "3-2"}
    return st


def driven(state: dict, seed: int, orders: int) -> list[tuple[dict, str, dict]]:
    """(position, seat, accepted order) along random legal play from ``state``, decided and folded
    as the aggregate does (the rolls of an order start afresh, as after OrderAccepted)."""
    rng = random.Random(seed)
    seen = []
    st = state
    for _ in range(orders):
        if st.get("ended"):
            break
        seat = st["pending"][0]["seat"] if st["pending"] else S.PHASE_SIDE[st["phase"]]
        st = {**st, "order_rolls": []}
        for order in random_play.candidates(R, st, seat, rng):
            dice = FixedDice(*[rng.randint(1, 6) for _ in range(60)], default=3)
            try:
                out = R.decide(copy_of(st), seat, order, dice)
            except (RuleViolation, InvalidOrder):
                continue
            seen.append((st, seat, order))
            st = fold_all(st, out)
            break
    return seen


def positions() -> list[tuple[dict, str, dict]]:
    found = games()
    for n, phase in enumerate(["UK Operations", "AR Operations"] * 3):
        found += driven(landing(phase), SEED + 70 + n, 40)
    return found


# ------------------------------------------------------------------------------ mutations ---
class Mutant:
    def __init__(self, order: dict, what: str, path: tuple, must_refuse: str | None = None):
        self.order, self.what, self.path, self.must_refuse = order, what, path, must_refuse


def _get(order: dict, path: tuple):
    v = order
    for p in path:
        v = v[p]
    return v


def _set(order: dict, path: tuple, value) -> dict:
    out = copy_of(order)
    parent = _get(out, path[:-1])
    parent[path[-1]] = value
    return out


def _drop(order: dict, path: tuple) -> dict:
    out = copy_of(order)
    parent = _get(out, path[:-1])
    del parent[path[-1]]
    return out


def _rename_key(order: dict, path: tuple, new: str) -> dict:
    out = copy_of(order)
    parent = _get(out, path[:-1])
    parent[new] = parent.pop(path[-1])
    return out


def _field(order: dict, path: tuple) -> str:
    """The name of the field a path is under (the last string key that is no unit id: in
    ``{"moves": {"conqueror": "sa7"}}`` the value "sa7" is under "moves")."""
    names = [p for p in path if isinstance(p, str) and p not in DATA.units]
    return names[-1] if names else ""


def _enemy_field(order: dict, path: tuple, decision_kind: str | None) -> bool:
    name = _field(order, path)
    if decision_kind == "sf_compromised" and name == "unit":
        return True  # 2-4: the unaffected player chooses the enemy's SF unit
    return name in ENEMY_FIELDS


def _not_in_play_allowed(order: dict, path: tuple, decision_kind: str | None) -> bool:
    """Fields that name a unit not yet in play, or eliminated, by the text."""
    name = _field(order, path)
    return ((order.get("op") == 2 and name == "unit") or (order.get("op") == 6 and name == "entry")
            or (decision_kind == "peru_replacement" and name == "unit") or order.get("kind") == "setup")


def unit_replacements(state: dict, uid: str, rng: random.Random) -> list[tuple[str, str, str]]:
    """(what, replacement id, kind of wrongness) for a unit id."""
    side = DATA.units[uid]["side"]
    units = state["units"]
    out = []
    theirs = sorted(u for u in units if units[u]["side"] != side and S.alive(state, u))
    if theirs:
        out.append(("other side's unit", rng.choice(theirs), "other_side"))
    gone = sorted(u for u in units if units[u]["eliminated"] or units[u].get("withdrawn"))
    if gone:
        out.append(("eliminated unit", rng.choice(gone), "not_in_play"))
    later = sorted(u for u in units if not units[u]["in_play"] and not units[u]["eliminated"]
                   and not units[u].get("withdrawn") and units[u]["side"] == side)
    if later:
        out.append(("unit not yet arrived", rng.choice(later), "not_in_play"))
    here = S.where(state, uid) if S.alive(state, uid) else None
    elsewhere = sorted(u for u in units if units[u]["side"] == side and S.alive(state, u) and u != uid
                       and DATA.units[u]["class"] == DATA.units[uid]["class"] and S.where(state, u) != here)
    if elsewhere:
        out.append(("unit in another area", rng.choice(elsewhere), None))
    out.append(("unknown id", "no_such_unit", "unknown"))
    out.append(("id in other case", uid.upper() if uid.upper() != uid else uid.title(), "unknown"))
    return out


def _refusal_for(kind: str | None, order: dict, path: tuple, decision_kind: str | None, seat: str,
                 replacement: str) -> str | None:
    if kind == "unknown":
        return "an unknown id"
    if kind == "not_in_play" and not _not_in_play_allowed(order, path, decision_kind):
        return "a unit not in play"
    if kind == "other_side" or (kind is None and replacement in DATA.units):
        theirs = DATA.units[replacement]["side"] != seat
        if theirs != _enemy_field(order, path, decision_kind) and not _not_in_play_allowed(order, path, decision_kind):
            return "a unit of the wrong side"
    return None


def _type_ok(value, allowed: tuple) -> bool:
    return type(value) in allowed  # exactly: true is no number here


def _idle(state: dict, seat: str, order: dict, field: str) -> bool:
    """An Op #17 whose first wave (or bombardment) has nothing it can fire at: its shots are none."""
    if order.get("op") != 17 or not isinstance(order.get("area"), str) or order["area"] not in DATA.areas:
        return False
    enemy = [u for u in S.units_in(state, order["area"], side=S.other(seat), classes=["ground", "aircraft"])
             if field == "bombard_fire" or S.kind(u) == "ground"]
    shooters = order.get("bombard" if field == "bombard_fire" else "wave")
    shooters = [u for u in shooters if u in DATA.units] if isinstance(shooters, list) else []
    kind = "bombard" if field == "bombard_fire" else "assault"
    return not any(can_fire_at(state, {"kind": kind}, u, t) for u in shooters for t in enemy)


def _retype_refusal(order: dict, path: tuple, new, original, decision_kind: str | None,
                    idle: bool = False) -> str | None:
    """Why a value of ``new``'s type must be refused at ``path`` (None: it may be taken)."""
    field = _field(order, path)
    if isinstance(path[-1], int):  # an item of a list: the type of the others
        return None if type(new) is type(original) else f"a {type(new).__name__} item in {field!r}"
    if field == "op":
        return None if new == "exocet" or (type(new) is int and 1 <= new <= 25) else f"op {new!r}"
    if new is None:
        return None  # absent: an optional field's default
    allowed = TYPES.get(field) or ((STR,) if path[-1] in DATA.units else None)  # {unit: area or ship}
    if allowed is None:
        return None
    if not _type_ok(new, allowed):
        return f"a {type(new).__name__} for {field!r}"
    if field in ("fire", "bombard_fire") and new == [] and decision_kind != "interception" and not idle:
        return "'fire': [] (FS 10.2: no unit withholds its fire)"
    if field in ("fire", "bombard_fire") and isinstance(new, str) and new != "auto":
        return f"{field!r}: {new!r}"
    return None


def mutants(state: dict, seat: str, order: dict, rng: random.Random) -> list[Mutant]:
    decision_kind = state["pending"][0]["kind"] if state.get("pending") else None
    out: list[Mutant] = []

    def add(order_, what, path, must=None):
        out.append(Mutant(order_, what, path, must))

    def walk(value, path):
        if path:
            field = _field(order, path)
            parent = _get(order, path[:-1])
            if isinstance(parent, dict):
                add(_drop(order, path), "drop", path)
            for new in ("x", 0, [], {}, None, True, [value], {"v": value}):
                if type(new) is type(value) and new == value:
                    continue
                add(_set(order, path, new), f"type {type(value).__name__} -> {json.dumps(new)[:20]}", path,
                    _retype_refusal(order, path, new, value, decision_kind, _idle(state, seat, order, field)))
            if type(value) is int:
                for new in (0, -1, -value, 10 ** 9):
                    if new != value:
                        must = None
                        if field == "op":
                            must = "op out of 1-25"
                        elif field == "reroll" and (new < 0 or new > 1000):
                            must = "a die that was not rolled"
                        add(_set(order, path, new), f"number {new}", path, must)
            if isinstance(value, str):
                if value in DATA.units:
                    for what, new, wrongness in unit_replacements(state, value, rng):
                        add(_set(order, path, new), what, path,
                            _refusal_for(wrongness, order, path, decision_kind, seat, new))
                elif value in DATA.areas:
                    others = sorted(a for a in DATA.areas if a != value)
                    add(_set(order, path, rng.choice(others)), "another area", path)
                    add(_set(order, path, "atlantis"), "unknown area", path, "an unknown area")
                    add(_set(order, path, value.upper()), "area in other case", path, "an unknown area")
                elif value.upper() != value:
                    add(_set(order, path, value.upper()), "other case", path, "a value in other case")
            if isinstance(value, list):
                if value:
                    add(_set(order, path, [*value, value[0]]), "item doubled", path)
                    add(_set(order, path, value * 60), "very long list", path)
                    add(_set(order, path, []), "empty list", path,
                        _retype_refusal(order, path, [], value, decision_kind, _idle(state, seat, order, field))
                        if field in ("fire", "bombard_fire")
                        else None)
        if isinstance(value, dict) and path and isinstance(path[-1], int) and _field(order, path) == "fire":
            add(_set(order, path, {**value, "times": 3}), "a word added to a shot", path, "a shot with other words")
        if isinstance(value, dict):
            for k in list(value):
                walk(value[k], (*path, k))
                if path and k in DATA.units:  # a {unit: ...} map: the key is an id too
                    for what, new, wrongness in unit_replacements(state, k, rng):
                        if new not in value:
                            add(_rename_key(order, (*path, k), new), f"key: {what}", (*path, k),
                                _refusal_for(wrongness, order, (*path, k), decision_kind, seat, new))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, (*path, i))

    walk(order, ())
    op = order.get("op") if order.get("kind") == "operation" else None
    if op in (20, 22, 24):  # what goes with an attack, on a move (the attack dropped, or a move given it)
        moving = {k: v for k, v in order.items() if k != "attack"}
        joined = [k for k in ("support", "fire", "aircraft", "carriers", "refuel") if order.get(k) not in (None, [])]
        for k in joined if order.get("attack") is True else ["fire"]:
            add(moving if k in order else {**moving, k: "auto"}, "attack dropped" if k in order else f"{k} on a move",
                ("attack",), f"'{k}' without 'attack'")
    if op in (14, 18, 20) and not (seat == AR and "ar_target_of_opportunity" in state["effects"][AR]):
        add({**order, "target_of_opportunity": "hermes"}, "target of opportunity", ("target_of_opportunity",),
            "'target_of_opportunity' without event 3-2/3-3")
    if order.get("kind") == "decide" and isinstance(order.get("choice"), dict):
        add({**order, "choice": {**order["choice"], "fires": "auto"}}, "unknown answer field", ("choice", "fires"),
            "a field the answer does not have")
    else:
        add({**order, "unitz": []}, "unknown field", ("unitz",), "a field the kind does not have")
    return out


# ------------------------------------------------------------------------------- checking ---
def check_position(st: dict) -> list[str]:
    """The text's standing limits on a position (no decision pending)."""
    bad = []
    for side in (S.UK, S.AR):
        try:
            check_loads(loads_after(st, side, {}), "FS 6.2", st)
        except RuleViolation as e:
            bad.append(f"loads: {e}")
    for a, cap in DATA.airbases.items():
        planes = S.units_in(st, a, side=S.AR, classes=["aircraft"])
        if len(planes) > cap:
            bad.append(f"FS 6.2(3)(4): {len(planes)} AR aircraft at {a} (capacity {cap})")
        if "black_buck" in st["effects"][S.UK] and any(DATA.units[u]["type"] != "Puc" for u in planes):
            bad.append(f"FS 7.1 Op #9: non-Pucara aircraft at {a} after Black Buck")
        if planes and S.controlled_by(st, a) == S.UK:
            bad.append(f"FS 9.6: AR aircraft left at UK-held {a}")
    if S.units_in(st, S.ARGENTINA, side=S.UK, aboard_too=True):
        bad.append("FS 9.7: a UK unit in Argentina")
    if [u for u in S.units_in(st, S.SOUTH_GEORGIA, side=S.AR, aboard_too=True) if S.kind(u) != "submarine"]:
        bad.append("FS 3.7: an AR unit other than a submarine in South Georgia")
    return bad


def check_shots(outcomes: list) -> list[str]:
    """FS 10.2, 10.9: within one battle, a unit fires once (a UK carrier three or four times)."""
    bad, counts = [], {}
    for o in outcomes:
        if not isinstance(o, Roll):
            if o[0].__name__ in ("BattleBegun", "BattleEnded", "DecisionPending"):
                counts = {}
            continue
        if " fires at " in o.purpose and o.replaces is None and o.units:
            u = o.units[0]
            counts[u] = counts.get(u, 0) + 1
            most = 4 if u in UK_CARRIERS else 1
            if counts[u] > most:
                bad.append(f"{u} fired {counts[u]} times in one battle")
    return bad


def offered_answers(st: dict, seat: str, rng: random.Random) -> list[dict]:
    d = st["pending"][0]
    template = {"kind": "decide", "decision": d["id"], "decision_kind": d["kind"], "options": d["options"]}
    answers = [{"kind": "decide", "decision": d["id"], "choice": c} for c in decision_fields(d)["choice"]]
    answers.append(random_play.order_for(template, st, seat, rng))
    return answers


def follow_up(st: dict, rng: random.Random) -> list[str]:
    """Answer what the accepted order left pending with answers the rules offer; return the problems."""
    for _ in range(8):
        if st.get("ended") or not st.get("pending"):
            return [] if st.get("ended") else check_position(st)
        seat = st["pending"][0]["seat"]
        refusal = ""
        for reply in offered_answers(st, seat, rng):
            try:
                out = R.decide(copy_of(st), seat, reply, FixedDice(default=rng.randint(1, 6)))
            except (InvalidOrder, RuleViolation) as e:
                refusal = str(e)
                continue
            problems = check_shots(out)
            if problems:
                return problems
            st = fold_all(st, out)
            break
        else:
            return [f"stuck: no offered answer to {st['pending'][0]['kind']} is accepted ({refusal})"]
    return []


def try_mutant(state: dict, seat: str, m: Mutant, rng: random.Random) -> str | None:
    """A problem with how the rules take mutant ``m``, or None."""
    given = copy_of(state)
    fingerprint = json.dumps(given, sort_keys=True)
    dice = FixedDice(default=rng.randint(1, 6))
    try:
        out = R.decide(given, seat, m.order, dice)
    except (InvalidOrder, RuleViolation) as e:
        if e.rule not in NUMBERS:
            return f"refused under {e.rule!r}, no rule number of the text: {e}"
        if json.dumps(given, sort_keys=True) != fingerprint:
            return f"refused ({e}) but the position it was given was changed"
        return None
    except Exception as e:  # noqa: BLE001 - the property: never any other exception
        return f"crashed: {type(e).__name__}: {e}"
    if json.dumps(given, sort_keys=True) != fingerprint:
        return "accepted but the position it was given was changed"
    if m.must_refuse:
        return f"accepted {m.must_refuse}"
    problems = check_shots(out)
    if not problems:
        problems = follow_up(fold_all(state, out), rng)
    return "; ".join(problems) or None


def test_mutated_orders_are_accepted_as_the_text_allows_or_refused_naming_a_rule():
    rng = random.Random(7)
    failures: dict[str, list[str]] = {}
    tried = 0
    for state, seat, order in positions():
        found = mutants(state, seat, order, rng)
        for m in rng.sample(found, min(MUTANTS_PER_ORDER, len(found))):
            tried += 1
            problem = try_mutant(state, seat, m, rng)
            if problem:
                field = "/".join(p for p in map(str, m.path) if p not in DATA.units and not p.isdigit())
                key = f"{order.get('op', order['kind'])}: {m.what.split(' -> ')[0]} at {field}: {problem.split(':')[0]}"
                failures.setdefault(key, []).append(f"{problem}\n      order: {json.dumps(m.order)[:300]}")
    assert tried > 1000, tried
    report = "\n".join(f"{k} ({len(v)}x):\n    {v[0]}" for k, v in sorted(failures.items()))
    assert not failures, f"{len(failures)} kinds of failure:\n{report}"


# ------------------------------------------------------------- what the property found ---
# One plain test for each kind of failure the property test found; each failed before its fix.

FLAT = next(a for a in DATA.land_areas if not DATA.areas[a]["mountains"] and not DATA.areas[a]["entrenched"])
REFUSED = (InvalidOrder, RuleViolation)


def refusal(st: dict, seat: str, order: dict) -> InvalidOrder | RuleViolation:
    with pytest.raises(REFUSED) as e:
        play(st, seat, order, FixedDice(default=6))
    return e.value


@pytest.mark.parametrize("kind", [["operation"], {"v": "pass"}, {}])
def test_fs_5_2_an_order_whose_kind_is_no_word_is_refused_not_a_crash(kind):
    """FS 5.2: an order is one of the turn sequence's kinds; a list or object as its 'kind' raised
    TypeError (unhashable) instead of a refusal."""
    assert refusal(empty(), UK, {"kind": kind, "op": 9}).rule == "FS 5.2"


@pytest.mark.parametrize("area", [["sa6"], {"v": "sa6"}])
def test_fs_3_3_a_submarine_placed_in_no_sea_area_is_refused_not_a_crash(area):
    """FS 3.3 "Spartan and Splendid, are placed in any one or two of the three sea areas within the
    TEZ": a list or object for the area raised TypeError."""
    st = initial()
    assert refusal(st, UK, {"kind": "setup", "submarines": {"spartan": area, "splendid": "sa7"}}).rule == "FS 3.3"


@pytest.mark.parametrize("placing, says", [
    ({"spartan": "sa6"}, "gives no TEZ sea area for Splendid"),  # the game page's "—" left for one
    ({}, "gives no TEZ sea area for Spartan, Splendid"),
    ({"spartan": "sa6", "splendid": "sa7", "hermes": "sa6"}, "places only Spartan, Splendid; not hermes"),
    ({"spartan": ["sa6"], "splendid": "sa7"}, "gives Spartan no sea area id"),
])
def test_fs_3_3_a_set_up_refused_says_which_submarine_it_leaves_out_or_gets_wrong(placing, says):
    """FS 3.3 "The two UK submarines, Spartan and Splendid, are placed in any one or two of the
    three sea areas within the TEZ": a set-up that leaves one out was refused with "'submarines'
    places spartan, splendid in TEZ sea areas", which reads as what the order did, not what it lacks."""
    e = refusal(initial(), UK, {"kind": "setup", "submarines": placing})
    assert e.rule == "FS 3.3" and says in str(e), str(e)
    assert ("one of the TEZ sea areas (Falkland Islands Sea Area ('falklands'), Sea Area 6 ('sa6'), "
            "Sea Area 7 ('sa7'))") in str(e), str(e)  # each with the id the order takes (round 13)


@pytest.mark.parametrize("moves", [[], 0, ""])
def test_fs_8_1_moves_that_are_no_map_of_submarines_are_refused_not_read_as_none(moves):
    """FS 8.1: the phase's order maps submarines to sea areas; [], 0 or "" was read as "move none"."""
    st = set_phase(empty(), "UK Submarine")
    place(st, "spartan", "sa7")
    assert refusal(st, UK, {"kind": "submarines", "moves": moves}).rule == "FS 8.1"
    out, _ = play(st, UK, {"kind": "submarines"}, FixedDice(default=6))  # none given: none move
    assert not events_of(out, "UnitMoved")


@pytest.mark.parametrize("entry", [[], 0])
def test_fs_7_1_op_6_an_entry_that_is_no_map_of_ships_is_refused_not_read_as_sea_area_4(entry):
    """Op #6 "either via Sea Area 4 or ... the South Georgia Holding Box, as decided by him on a
    ship-by-ship basis": [] or 0 for the ships' entries was read as "all via Sea Area 4"."""
    st = empty()
    st["ops_log"][UK] = [20, 20]
    assert refusal(st, UK, op(6, entry=entry)).rule == "FS 7.1 Op #6"
    out, _ = play(st, UK, op(6))  # none given: all via Sea Area 4
    assert {e["area"] for e in events_of(out, "UnitEntered") if e["area"]} == {"sa4"}


def _stranded() -> dict:
    st = empty()
    place(st, "hermes", "sa4")
    place(st, "fearless", "falklands")
    place(st, "2_para", aboard="fearless")
    place(st, "pucara_3", "pebble_island")
    out, st = play(st, UK, op(16, units=["2_para"], area="pebble_island"))
    assert pending(st)["kind"] == "emergency_rebase"
    return st


@pytest.mark.parametrize("base", [["goose_green"], {"v": "goose_green"}])
def test_fs_9_6_a_rebasing_destination_that_is_no_base_is_refused_not_a_crash(base):
    """FS 9.6 "Rebasing destinations may be decided on by the AR player on a unit-by-unit basis":
    a list or object as a destination raised TypeError (unhashable)."""
    with pytest.raises(REFUSED) as e:
        answer(_stranded(), AR, {"destinations": {"pucara_3": base}})
    assert e.value.rule == "FS 9.6"


def _interception() -> dict:
    st = empty("AR Operations")
    place(st, "hermes", "falklands")
    place(st, "glamorgan", "falklands")
    place(st, "a4_1", "port_stanley")
    out, st = play(st, AR, op(18, area="falklands", aircraft=["a4_1"], fire="auto"), FixedDice(default=6))
    assert pending(st)["kind"] == "interception"
    return st


@pytest.mark.parametrize("choice", ["auto", "x", {"fire": 0}, {"fire": {}}, {"fire": False}])
def test_fs_7_1_op_11_an_interception_answer_that_is_no_fire_is_refused_not_read_as_a_pass(choice):
    """Op #11: the UK "may" intercept; an answer is {"fire": [...] or "auto"}, or {"fire": []} to let
    the flight pass. "auto" as the whole answer, or a fire of 0, {} or false, was read as a pass."""
    with pytest.raises(REFUSED) as e:
        answer(_interception(), UK, choice, FixedDice(default=6))
    assert e.value.rule in ("FS 7.1 Op #11", "FS 10.2")
    out, _ = answer(_interception(), UK, {"fire": []})
    assert not events_of(out, "BattleBegun") or events_of(out, "BattleBegun")[0]["kind"] != "interception"


def test_fs_11_3_4_1_a_leadership_answer_that_is_a_word_is_refused_not_read_as_keep():
    """4-1/4-2: the holder "may play that marker after any die roll": {"reroll": i} or null. The word
    "x" as the whole answer was read as keeping the dice."""
    st = empty()
    place(st, "glamorgan", "sa7")
    place(st, "drummond", "sa7")
    st["markers"][UK] = ["uk_decisive_leader"]
    out, st = play(st, UK, op(14, area="sa7", units=["glamorgan"], fire=fire(("glamorgan", "drummond"))))
    out, st = answer(st, AR, {"fire": fire(("drummond", "glamorgan"))}, FixedDice(5, 5))
    assert pending(st)["kind"] == "leadership"
    with pytest.raises(REFUSED) as e:
        answer(st, UK, "x")
    assert e.value.rule == "FS 11.3 4-1"


def _assault(monkeypatch, defenders=("ri_12", "ri_25")) -> dict:
    st = empty()
    for u in defenders:
        place(st, u, FLAT)
        with_factor(monkeypatch, u, ground=3)
    control(st, AR, FLAT)
    place(st, "fearless", "falklands")
    place(st, "glamorgan", "falklands")
    with_factor(monkeypatch, "glamorgan", ground=3, air=3)
    for u in ("2_para", "40_cdo"):
        place(st, u, aboard="fearless")
        with_factor(monkeypatch, u, ground=3)
    return st


@pytest.mark.parametrize("fields", [{"fire": 0}, {"fire": {}}, {"fire": True}, {"fire": "AUTO"},
                                    {"bombard": ["glamorgan"], "bombard_fire": 0},
                                    {"bombard": ["glamorgan"], "bombard_fire": []},
                                    {"bombard": ["glamorgan"], "bombard_fire": "AUTO"},
                                    {"bombard": [], "bombard_fire": [{"unit": "glamorgan", "at": "ri_12"}]}])
@pytest.mark.parametrize("defenders", [("ri_12", "ri_25"), ()])
def test_fs_7_1_op_17_the_assaults_shots_are_checked_with_the_order_not_read_as_automatic(monkeypatch, fields,
                                                                                          defenders):
    """Op #17 and FS 10.2: the first wave's and the bombardment's shots are a list of {unit, at} or
    "auto". 0, {}, true or [] was read as automatic fire, "AUTO" (or anything) passed when the area
    had no defenders, and a bombardment's shots without bombarding ships were dropped."""
    st = _assault(monkeypatch, defenders)
    order = op(17, area=FLAT, wave=["2_para", "40_cdo"], **fields)
    if fields.get("bombard_fire") == [] and not defenders:
        play(st, UK, order)  # nothing to bombard: no shots is right
        return
    assert refusal(st, UK, order).rule in ("FS 7.1 Op #17", "FS 10.2")


def test_fs_7_1_op_17_a_wave_shot_at_a_unit_the_bombardment_removed_does_not_refuse_the_order(monkeypatch):
    """Op #17: the bombardment is "conducted as part of this assault op", before the landing. A
    legal order whose first wave aims at a unit the bombardment then sinks was refused after the
    dice ("FS 10.2: ri_12 is not a target in this battle"). Whether that shot is lost or aimed
    anew the text leaves open (the report says both); this test asks only that the order stands."""
    st = _assault(monkeypatch)
    order = op(17, area=FLAT, wave=["2_para", "40_cdo"], fire=fire(("2_para", "ri_12"), ("40_cdo", "ri_25")),
               bombard=["glamorgan"], bombard_fire=fire(("glamorgan", "ri_12")))
    out, after = play(st, UK, order, FixedDice(1))  # the bombardment hits ri_12
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["ri_12"]
    assert pending(after)["kind"] == "defensive_fire"
    answer(after, AR, {"fire": "auto"}, FixedDice(default=6))


def test_fs_11_3_4_3_a_leader_reroll_in_an_assault_is_answered_not_stuck(monkeypatch):
    """4-3 with Op #17: the AR holds the marker, so the bombardment's die, a hit on his unit, is
    offered for a re-roll before the wave lands. The wave's shot at the unit that die removed made
    every answer to the re-roll refused: the game could not go on. (The UK held it before; his
    own hit is no die he dislikes, and is not asked about now, 11.3 4-1.)"""
    st = _assault(monkeypatch)
    st["markers"][AR] = ["ar_decisive_leader"]
    order = op(17, area=FLAT, wave=["2_para", "40_cdo"], fire=fire(("2_para", "ri_12"), ("40_cdo", "ri_25")),
               bombard=["glamorgan"], bombard_fire=fire(("glamorgan", "ri_12")))
    out, after = play(st, UK, order, FixedDice(1))
    assert pending(after)["kind"] == "leadership"
    out, after = answer(after, AR, {"reroll": None}, FixedDice(default=6))
    assert "ri_12" not in S.units_in(after, FLAT, side=AR, classes=["ground"])


@pytest.mark.parametrize("number,fields", [
    (20, {"aircraft": ["a4_1"]}), (20, {"carriers": ["25_de_mayo"]}), (20, {"refuel": ["a4_1"]}),
    (20, {"target_of_opportunity": "hermes"}),
])
def test_fs_7_1_op_20_what_joins_an_attack_on_a_move_alone_is_refused_not_dropped(number, fields):
    """Op #20 "in-range land-based aircraft, and/or carriers in adjacent sea areas, may also be
    involved in the attack": on a move without "attack": true they were dropped in silence (only
    'support' and 'fire' were refused)."""
    st = empty("AR Operations")
    place(st, "drummond", "sa6")
    place(st, "25_de_mayo", "sa6")
    place(st, "a4_1", S.ARGENTINA)
    st["effects"][AR]["ar_target_of_opportunity"] = {"event": "3-2"}
    assert refusal(st, AR, op(number, units=["drummond"], destination="sa7", **fields)).rule == "FS 7.1 Op #20"


@pytest.mark.parametrize("number", [22, 24])
@pytest.mark.parametrize("fields", [{"support": ["40_cdo"]}, {"fire": "auto"},
                                    {"fire": [{"unit": "2_para", "at": "ri_12"}]}])
def test_fs_7_1_op_22_and_24_what_goes_with_an_attack_on_a_move_alone_is_refused_not_dropped(number, fields):
    """Op #22 "helicoptered units may end their move by attacking, alone or in conjunction with other
    friendly ground units already present" and Op #24 "Other friendly ground units already in the
    land area ... may also be involved in the attack": 'support' and 'fire' without "attack": true
    were dropped in silence."""
    st = empty()
    place(st, "2_para", "san_carlos")
    place(st, "40_cdo", "teal_inlet")
    place(st, "ri_12", "teal_inlet")
    control(st, UK, "san_carlos")
    order = op(number, units=["2_para"], origin="san_carlos", destination="teal_inlet", **fields)
    assert refusal(st, UK, order).rule == f"FS 7.1 Op #{number}"
    play(st, UK, op(number, units=["2_para"], origin="san_carlos", destination="teal_inlet"))  # the move alone


def test_fs_11_3_3_2_a_target_of_opportunity_outside_the_event_or_not_a_uk_ship_is_refused_not_dropped():
    """3-2/3-3 "the AR player may choose to attack any one protected UK surface vessel without having
    to also engage unprotected targets": named by the UK, or by the AR without the event, it was
    dropped in silence; the AR's own 25 de Mayo (protected) was accepted as the target."""
    st = empty()
    place(st, "glamorgan", "sa7")
    place(st, "drummond", "sa7")
    place(st, "25_de_mayo", "sa7")
    order = op(14, area="sa7", units=["glamorgan"], fire=fire(("glamorgan", "drummond")),
               target_of_opportunity="25_de_mayo")
    assert refusal(st, UK, order).rule == "FS 11.3 3-2"
    st = set_phase(st, "AR Operations")
    order = op(14, area="sa7", units=["drummond", "25_de_mayo"], fire="auto", target_of_opportunity="hermes")
    assert refusal(st, AR, order).rule == "FS 11.3 3-2"  # no event 3-2 in effect
    st["effects"][AR]["ar_target_of_opportunity"] = {"event": "3-2"}
    assert refusal(st, AR, {**order, "target_of_opportunity": "25_de_mayo"}).rule == "FS 11.3 3-2"


def _free_attack(monkeypatch, uk_die: int, ar_die: int) -> dict:
    st = empty()
    for u in ("spartan", "glamorgan", "drummond"):
        place(st, u, "sa7")
        with_factor(monkeypatch, u, surface=3, sub=3)
    set_phase(st, "AR Submarine")
    out, st = play(st, AR, {"kind": "submarines", "moves": {}}, FixedDice(uk_die, ar_die))
    assert pending(st)["kind"] == "free_attack"
    return st


def test_fs_11_3_3_4_a_surprise_attack_takes_one_target_not_assigned_fire(monkeypatch):
    """3-4 "The UK player may attack any one AR surface vessel ... co-located ... with one or more UK
    submarines": the answer names the one 'target'; a 'fire' given with it was dropped in silence."""
    st = _free_attack(monkeypatch, 3, 4)
    choice = {"area": "sa7", "units": ["spartan"], "target": "drummond"}
    with pytest.raises(REFUSED) as e:
        answer(st, UK, {**choice, "fire": fire(("spartan", "drummond"))})
    assert e.value.rule == "FS 11.3 3-4"
    answer(st, UK, choice, FixedDice(6))


def test_fs_11_3_2_1_a_detection_attack_assigns_its_fire_not_one_target(monkeypatch):
    """2-1 "conduct an attack on the AR surface ship(s) in any one presently contested sea area.
    ... Normal defensive fires are made": its shots are assigned ('fire'); a 'target' given with it
    was dropped in silence."""
    st = _free_attack(monkeypatch, 2, 1)
    choice = {"area": "sa7", "units": ["spartan", "glamorgan"], "fire": "auto"}
    with pytest.raises(REFUSED) as e:
        answer(st, UK, {**choice, "target": "drummond"})
    assert e.value.rule == "FS 11.3 2-1"
    answer(st, UK, choice, FixedDice(default=6))


def test_fs_10_9_a_shot_is_a_unit_and_its_target_other_words_in_it_are_refused_not_dropped():
    """FS 10.9 "each time a British carrier fires ... they may fire three times": each shot is one
    {"unit", "at"} in 'fire'. {"unit": "hermes", "at": "drummond", "times": 3} was taken as one shot
    and its "times" dropped in silence."""
    st = empty()
    place(st, "hermes", "sa7")
    place(st, "drummond", "sa7")
    order = op(14, area="sa7", units=["hermes"], fire=[{"unit": "hermes", "at": "drummond", "times": 3}])
    assert refusal(st, UK, order).rule == "FS 10.2"
    play(st, UK, {**order, "fire": fire(*[("hermes", "drummond")] * 3)})


def test_fs_11_3_3_2_the_target_of_opportunity_is_in_the_attacked_area():
    """3-2 "attack any one protected UK surface vessel without having to also engage unprotected
    targets in that same area": a protected ship named elsewhere than the attack was accepted and
    did nothing."""
    st = empty("AR Operations")
    place(st, "glamorgan", "sa7")
    place(st, "drummond", "sa7")
    place(st, "hermes", "sa4")
    st["effects"][AR]["ar_target_of_opportunity"] = {"event": "3-2"}
    order = op(14, area="sa7", units=["drummond"], fire="auto", target_of_opportunity="hermes")
    assert refusal(st, AR, order).rule == "FS 11.3 3-2"
    place(st, "hermes", "sa7")
    play(st, AR, {**order, "fire": fire(("drummond", "hermes"))})
