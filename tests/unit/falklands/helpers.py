"""Shared helpers for the Falklands Showdown rule tests (pure unit tests, no DB).

Two helpers write tests against this module at once: only APPEND to it, never change what is
already here.

    st = fresh()                         # set-up done, turn 1, UK Operations, 1-1 cleared
    place(st, "hermes", "sa7")           # put a unit in play somewhere (or aboard=ship)
    dice = FixedDice(3, 5)               # the next d6 rolls come up 3, then 5
    out, st2 = play(st, "UK", {"kind": "operation", "op": 1, ...}, dice)
    assert names(out) == [...]; assert events_of(out, "UnitMoved")[0]["destination"] == "sa6"
"""

from __future__ import annotations

import copy
from typing import Any, Iterable

import pytest

from domain.errors import InvalidOrder, RuleViolation
from domain.game import Roll
from domain.rulesets import find_ruleset
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.data import DATA

R = find_ruleset("falklands")
UK, AR = S.UK, S.AR


# ------------------------------------------------------------------------------ the dice ---
class DiceExhausted(AssertionError):
    """The engine rolled more dice than the test chose faces for."""


class FixedDice:
    """A dice double: each roll takes its faces, in order, from the values given.

    ``FixedDice(3, 5)`` makes the next two d6 come up 3 then 5; a roll beyond them fails the test
    (``DiceExhausted``) unless ``default`` is given, which every further face then takes.
    ``rolls`` keeps every Roll made, ``calls`` the keyword arguments of each call (purpose, rule,
    seat, units ...), ``epochs_closed`` how often close_epoch() was called."""

    def __init__(self, *faces: int, default: int | None = None):
        self.faces = list(faces)
        self.default = default
        self.rolls: list[Roll] = []
        self.calls: list[dict] = []
        self.epoch = 1
        self.nonce = 0
        self.epochs_closed = 0

    def roll(self, count: int, sides: int, *, seat: str, purpose: str, rule: str | None = None,
             units: list | tuple = (), replaces: int | None = None, notation: str | None = None) -> Roll:
        values = []
        for _ in range(count):
            if self.faces:
                value = self.faces.pop(0)
            elif self.default is not None:
                value = self.default
            else:
                raise DiceExhausted(f"an unplanned roll: {count}d{sides} for {purpose!r} ({rule})")
            assert 1 <= value <= sides, f"face {value} is not on a d{sides}"
            values.append({"nonce": self.nonce, "sides": sides, "value": value})
            self.nonce += 1
        made = Roll(self.epoch, values, seat, purpose, rule, list(units), replaces, notation or f"{count}d{sides}")
        self.rolls.append(made)
        self.calls.append({"count": count, "sides": sides, "seat": seat, "purpose": purpose, "rule": rule,
                           "units": list(units), "replaces": replaces})
        return made

    def close_epoch(self) -> None:
        self.epoch += 1
        self.nonce = 0
        self.epochs_closed += 1

    @property
    def left(self) -> list[int]:
        return list(self.faces)


class NoDice(FixedDice):
    """A dice double for orders that must not roll at all."""

    def __init__(self):
        super().__init__()


# --------------------------------------------------------------------------- the outcomes ---
def names(outcomes: list) -> list[str]:
    """Class names of the outcomes, a Roll as "Roll"."""
    return ["Roll" if isinstance(o, Roll) else o[0].__name__ for o in outcomes]


def events_of(outcomes: list, name: str) -> list[dict]:
    """The fields of every outcome of the event class ``name``."""
    return [o[1] for o in outcomes if not isinstance(o, Roll) and o[0].__name__ == name]


def rolls_of(outcomes: list) -> list[Roll]:
    return [o for o in outcomes if isinstance(o, Roll)]


def fold_all(state: dict, outcomes: list) -> dict:
    """Fold outcomes into a state as the aggregate would (a Roll as DiceRolled)."""
    st = state
    for seq, o in enumerate(outcomes, start=1):
        if isinstance(o, Roll):
            st = S.fold(st, "DiceRolled", o.fields(), seq)
        else:
            st = S.fold(st, o[0].__name__, o[1], seq)
    return st


def play(state: dict, seat: str, order: dict, dice: Any = None) -> tuple[list, dict]:
    """Decide ``order`` for ``seat`` on ``state`` (never changed) and fold what it emits.

    Returns (outcomes, the folded state)."""
    dice = dice if dice is not None else NoDice()
    before = copy.deepcopy(state)
    out = R.decide(before, seat, order, dice)
    return out, fold_all(state, out)


def pending(state: dict) -> dict | None:
    return state["pending"][0] if state.get("pending") else None


def answer(state: dict, seat: str, choice: Any, dice: Any = None) -> tuple[list, dict]:
    """Answer the decision waiting on ``state``."""
    d = pending(state)
    assert d is not None, "no decision is waiting"
    return play(state, seat, {"kind": "decide", "decision": d["id"], "choice": choice}, dice)


def keep_dice(state: dict, seat: str, *faces: int) -> tuple[list, dict]:
    """FS 11.3 4-1/4-3: the holder of a Decisive Leader marker (``seat``) keeps the die just rolled,
    once per face of ``faces``, each answer's order rolling the next die as that face (it is asked
    again after it). Returns every outcome and the state after the last answer."""
    outs: list = []
    for face in faces:
        assert pending(state)["kind"] == "leadership", pending(state)
        out, state = answer(state, seat, {"reroll": None}, FixedDice(face))
        outs += out
    return outs, state


def op(number: Any, **fields: Any) -> dict:
    return {"kind": "operation", "op": number, **fields}


# ----------------------------------------------------------------------------- positions ---
def initial(**options: Any) -> dict:
    """The state right after game creation (set-up phase, nothing placed yet)."""
    return copy.deepcopy(R.setup(None, dict(options)).state)


def fresh(phase: str = "UK Operations", *, turn: int = 1, superiority: bool = False,
          submarines: dict | None = None, **options: Any) -> dict:
    """A position after set-up, in ``phase`` of ``turn``, with the FS 5.4 event 1-1 cleared
    unless ``superiority`` (so one UK operation per phase unless a test wants two)."""
    st = initial(**options)
    subs = submarines or {u: sorted(DATA.tez)[0] for u, d in DATA.units.items() if d.get("setup") == "tez"}
    out, st = play(st, UK, {"kind": "setup", "submarines": subs})
    if not superiority:
        st["effects"][UK].pop("uk_operational_superiority", None)
    set_phase(st, phase, turn=turn)
    return st


def set_phase(st: dict, phase: str, *, turn: int | None = None) -> dict:
    side = S.PHASE_SIDE.get(phase)
    st["phase"] = phase
    st["active"] = [side] if side else []
    if turn is not None:
        st["turn"] = turn
    st["phase_ops"] = S.phase_allowance(st, phase)
    return st


def place(st: dict, uid: str, area: str | None = None, *, aboard: str | None = None,
          steps: int | None = None) -> dict:
    """Put ``uid`` in play at ``area`` (or aboard ship ``aboard``), alive, full strength unless
    ``steps``."""
    u = st["units"][uid]
    u.update(location=None if aboard else area, aboard=aboard, in_play=True, eliminated=False,
             steps=DATA.units[uid]["steps"] if steps is None else steps)
    u.pop("withdrawn", None)
    return st


def remove(st: dict, *uids: str) -> dict:
    """Take units out of play (not eliminated: as if never entered)."""
    for uid in uids:
        st["units"][uid].update(location=None, aboard=None, in_play=False, eliminated=False)
    return st


def clear(st: dict, side: str | None = None, classes: Iterable[str] | None = None,
          keep: Iterable[str] = ()) -> dict:
    """Take every unit (of ``side``/``classes``) out of play except ``keep``: an empty board to
    build a small position on."""
    keep = set(keep)
    classes = set(classes) if classes else None
    for uid, u in st["units"].items():
        if uid in keep or (side and u["side"] != side) or (classes and DATA.units[uid]["class"] not in classes):
            continue
        remove(st, uid)
    return st


def empty(phase: str = "UK Operations", **kw: Any) -> dict:
    """``fresh`` with no unit of either side in play."""
    return clear(fresh(phase, **kw))


def control(st: dict, side: str, *areas: str) -> dict:
    for a in areas:
        st["control"][a] = side
    return st


def units_where(**match: Any) -> list[str]:
    """Unit ids whose DATA entry matches every field given, sorted."""
    return sorted(u for u, d in DATA.units.items() if all(d.get(k) == v for k, v in match.items()))


def first(**match: Any) -> str:
    found = units_where(**match)
    assert found, f"no unit in DATA matches {match}"
    return found[0]


def with_factor(monkeypatch, uid: str, **factors: int) -> None:
    """Give ``uid`` synthetic combat factors for one test (DATA is read-only: swap the entry)."""
    entry = copy.deepcopy(DATA.units[uid])
    entry["factors"] = {**entry["factors"], **factors}
    table = dict(DATA.units)
    table[uid] = entry
    monkeypatch.setattr(DATA, "units", table)


# ---------------------------------------------------- shared by the rule test modules ---
TEZ = sorted(DATA.tez)
UK_DESTROYERS = sorted(u for u, d in DATA.units.items() if d["side"] == UK and d["type"] == "D")
AR_DESTROYERS = sorted(u for u, d in DATA.units.items() if d["side"] == AR and d["type"] == "D")
UK_INFANTRY = sorted(u for u, d in DATA.units.items() if d["side"] == UK and d["type"] == "infantry")
UK_SF = sorted(u for u, d in DATA.units.items() if d["side"] == UK and d["type"] == "sf")
UK_SUBS = sorted(u for u, d in DATA.units.items() if d["side"] == UK and d["class"] == "submarine")
AR_SUBS = sorted(u for u, d in DATA.units.items() if d["side"] == AR and d["class"] == "submarine")
DAGGERS = sorted(u for u, d in DATA.units.items() if d["type"] == "Dgr")
PUCARAS = sorted(u for u, d in DATA.units.items() if d["type"] == "Puc")


def uk(phase="UK Operations"):
    """An empty board in a UK phase, with one UK destroyer in the TEZ (FS 4.4(1) stays quiet)."""
    return place(empty(phase), UK_DESTROYERS[-1], TEZ[0])


def ar(phase="AR Operations"):
    return empty(phase)


def refused(st, seat, order, dice=None) -> RuleViolation:
    with pytest.raises(RuleViolation) as e:
        play(st, seat, order, dice or FixedDice(default=6))
    return e.value


def broken(st: dict, seat: str, order: dict, rule: str, dice=None) -> RuleViolation | InvalidOrder:
    """The order is refused under ``rule`` and the position is left as it was (nothing recorded:
    ``decide`` raises before any outcome reaches the log). A field the operation does not have is
    refused as an invalid order naming the operation's rule; a broken limit as a rule violation."""
    before = copy.deepcopy(st)
    with pytest.raises((RuleViolation, InvalidOrder)) as err:
        R.decide(copy.deepcopy(st), seat, order, dice or FixedDice(default=6))
    assert err.value.rule == rule, (err.value.rule, str(err.value))
    assert st == before
    return err.value


def fire(*pairs) -> list[dict]:
    return [{"unit": u, "at": t} for u, t in pairs]


def op_4_force(st: dict) -> dict:
    """Op #4's force placed (FS 7.1 Op #4: three surface vessels, a submarine, two SF): Hermes with
    SAS D aboard, Glamorgan and Arrow in Sea Area 4, Onyx with the SBS aboard in Sea Area 5, and
    Santa Fe in the South Georgia box; returns the Op #4 order that sends them."""
    for ship in ("hermes", "glamorgan", "arrow"):
        place(st, ship, "sa4")
    place(st, "onyx", "sa5")
    place(st, "sbs", aboard="onyx")
    place(st, "sas_d", aboard="hermes")
    place(st, "santa_fe", S.SOUTH_GEORGIA)
    return op(4, ships=["hermes", "glamorgan", "arrow"], submarine="onyx", sf=["sbs", "sas_d"])
