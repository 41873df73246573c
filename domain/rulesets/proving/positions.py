"""PG 7 Positions and sandboxes.

PG 7.1  Named positions: a game may start from a position of ``data/positions/`` ("midgame": turn
        3, Red 4 VP, Blue 2 VP) instead of the standard set-up (docs/rulesets.md).
PG 7.2  Scoring roll: a seat rolls one d6 and scores its face as VP for its own side.
PG 7.3  Face-down markers: a seat takes a marker named by a word of 1 to 40 characters; the
        marker's name is seen by its side and the umpire only, the others see that a marker was
        taken ("face-down"). So a state can hold hidden information that a fork must not leak.
PG 7.4  Turn end: a seat ends the turn; the next turn begins (and the dice epoch closes, its seed
        revealed, so every roll made in it can be verified).
PG 7.5  Sandboxes: a game of the proving ground may be forked at any event between orders; the
        fork starts from that state with dice of its own (docs/rulesets.md, Positions and
        sandboxes).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from domain import events as ev
from domain.errors import InvalidOrder
from domain.rulesets import UMPIRE
from domain.rulesets.proving.rules import FOLDS, SECRETS, VIEWS, kind
from domain.rulesets.toolkit.hidden import ORDER_FIELDS, Private

FACE_DOWN = "face-down"
MAX_MARKER = 40


@kind("roll_score", lambda state, seat: {"kind": "roll_score", "rule": "PG 7.2"}, rule="PG 7.2")
def roll_score(state: dict, seat: str, order: dict, dice: Any) -> list:
    roll = dice.roll(1, 6, seat=seat, purpose=f"{seat} scores a die", rule="PG 7.2")
    face = roll.values[0]
    return [roll, (ev.VPScored, {"side": seat, "delta": face, "total": state["vp"].get(seat, 0) + face,
                                 "reason": "scoring roll", "rule": "PG 7.2"})]


@kind("take_marker", lambda state, seat: {"kind": "take_marker", "rule": "PG 7.3",
                                          "fields": {"marker": {"type": "text", "max": MAX_MARKER}}},
      rule="PG 7.3", fields={"marker": f"the marker's name, 1 to {MAX_MARKER} printable characters"})
def take_marker(state: dict, seat: str, order: dict, dice: Any) -> list:
    name = order.get("marker")
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_MARKER or not name.isprintable():
        raise InvalidOrder(f"a marker is named by 1 to {MAX_MARKER} printable characters", rule="PG 7.3",
                           field="marker")
    return [(ev.MarkerGained, {"side": seat, "marker": name.strip(), "rule": "PG 7.3"})]


@kind("turn_end", lambda state, seat: {"kind": "turn_end", "rule": "PG 7.4"}, rule="PG 7.4")
def turn_end(state: dict, seat: str, order: dict, dice: Any) -> list:
    return [(ev.TurnAdvanced, {"turn": state["turn"] + 1, "phase": state["phases"][0], "rule": "PG 7.4"})]


def count_face_down(state: dict, event: Any) -> dict:
    """PG 7.3: the markers taken face down, by side (``state["face_down"]``), so views know them."""
    if type(event).__name__ == "MarkerGained" and event.rule == "PG 7.3":
        face_down = state.get("face_down") or {}
        return {**state, "face_down": {**face_down, event.side: [*face_down.get(event.side, []), event.marker]}}
    return state


def markers_face_down(state: dict, viewer: str | None) -> dict:
    """PG 7.3: a marker another side took face down is shown face down; the umpire sees all."""
    face_down = state.get("face_down") or {}
    if viewer == UMPIRE or all(side == viewer or not names for side, names in face_down.items()):
        return state
    markers = dict(state.get("markers") or {})
    for side, names in face_down.items():
        if side != viewer and names:
            hidden = Counter(names)
            shown = []
            for name in markers.get(side, []):
                if hidden[name] > 0:
                    hidden[name] -= 1
                    name = FACE_DOWN
                shown.append(name)
            markers[side] = shown
    return {**state, "markers": markers,
            "face_down": {side: names if side == viewer else [FACE_DOWN] * len(names)
                          for side, names in face_down.items()}}


def _face_down(data: dict) -> bool:
    return data.get("rule") == "PG 7.3"


def _takes_marker(data: dict) -> bool:
    return isinstance(data["order"], dict) and data["order"].get("kind") == "take_marker"


FOLDS.append(count_face_down)
VIEWS.append(markers_face_down)
# PG 7.3: a marker taken by another side is seen face down, in its order and its outcome.
SECRETS.add(Private("MarkerGained", ("marker",), owner="side", when=_face_down))
SECRETS.add(Private("OrderAccepted", ORDER_FIELDS, when=_takes_marker))
