"""The read models as pure folds over export lines: ``apply(view, line) -> view``.

Views are kept unfiltered (as an umpire sees the game): what a seat or a spectator may see is
decided when a view is read (``render_*``, through ``domain.visibility``), so every item keeps its
source line's ``type`` and ``data``.

A fold never mutates the view it is given, and returns it unchanged for a line at or below
``view["version"]``: a line is never applied twice. The projector, ``warlog rebuild-projections``
and ``api/reads.py`` all fold with these functions.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable, Iterable
from uuid import UUID

from eventsourcing.utils import get_topic

from domain import clock as clocks, dice
from domain.events import COMMAND_TYPES, event_class, fields_from_data
from domain.game import Game, sealed_status
from domain.rulesets import SYSTEM, UMPIRE, find_ruleset
from domain.visibility import filter_lines, fully_shown, shown_data, view_state
from projections.narrate import describe

ENTERS = frozenset({"TurnAdvanced", "PhaseAdvanced"})


def data_of(line: dict) -> dict:
    data = line.get("data")
    return data if isinstance(data, dict) else {}


def source(line: dict) -> dict:
    """What an item keeps of its line, so a reader can filter it for a viewer."""
    return {"type": line["type"], "data": line.get("data")}


# ============================================================================= positions ====
def empty_position() -> dict:
    return {"turn": None, "phase": None, "last_order": None}


def step_position(pos: dict, line: dict) -> tuple[tuple[Any, Any], dict]:
    """The (turn, phase) in force when ``line`` happened, and the position after it.

    GameCreated is in the turn and phase of its set-up; TurnAdvanced/PhaseAdvanced enter theirs
    for the lines after them; TakeBackAccepted goes back to the position in force when the
    taken-back order was accepted (the last OrderAccepted, the only order a take-back can name),
    or, when it names another line, to its restored state's."""
    kind, d = line["type"], data_of(line)
    turn, phase, last_order = pos["turn"], pos["phase"], pos["last_order"]
    if kind == "GameCreated":
        setup = d.get("setup") if isinstance(d.get("setup"), dict) else {}
        turn, phase = setup.get("turn"), setup.get("phase")
    before = (turn, phase)
    if kind == "OrderAccepted":
        last_order = [line["seq"], turn, phase]
    if kind in ENTERS:
        turn, phase = d.get("turn", turn), d.get("phase", phase)
    elif kind == "TakeBackAccepted":
        restored = d.get("restored") if isinstance(d.get("restored"), dict) else {}
        if last_order is not None and last_order[0] == d.get("superseded_from"):
            turn, phase = last_order[1], last_order[2]
        else:
            turn, phase = restored.get("turn", turn), restored.get("phase", phase)
    return before, {"turn": turn, "phase": phase, "last_order": last_order}


def _superseded_range(d: dict) -> list[int] | None:
    first, last = d.get("superseded_from"), d.get("superseded_to")
    if isinstance(first, int) and isinstance(last, int):
        return [first, last]
    return None


def _superseded_rolls(d: dict) -> list[int]:
    """The seqs of the rolls a TakeBackAccepted marks superseded (what in its list is an int)."""
    return [s for s in d.get("superseded_rolls") or [] if isinstance(s, int)]


def _in_ranges(seq: int, ranges: list[list[int]]) -> bool:
    return any(a <= seq <= b for a, b in ranges)


# =============================================================================== history ====
def history_empty() -> dict:
    return {"version": 0, "pos": empty_position(), "order_id": None, "op": None, "ops": {}, "items": []}


def history_apply(view: dict, line: dict) -> dict:
    """One item per line: its seq, the operation it belongs to (``op``: the first seq of the
    operation), and its source. An operation is what one command recorded (an order and its
    outcome, a join, a take-back, …, or the game's creation), filed under the turn and phase in
    force at its first line, with the order id and the seat that gave it."""
    if line["seq"] <= view["version"]:
        return view
    kind, d = line["type"], data_of(line)
    before, pos = step_position(view["pos"], line)
    order_id = view["order_id"]
    if kind == "OrderAccepted":
        order_id = d.get("order_id")
    elif kind in COMMAND_TYPES:
        order_id = None
    op, ops = view["op"], view["ops"]
    if op is None or kind == "OrderAccepted" or kind in COMMAND_TYPES:
        op = line["seq"]
        ops = {**ops, str(op): {"order_id": order_id, "seat": d.get("seat") if kind != "GameCreated" else None,
                                "turn": before[0], "phase": before[1]}}
    item = {"seq": line["seq"], "op": op, **source(line)}
    return {"version": line["seq"], "pos": pos, "order_id": order_id, "op": op, "ops": ops,
            "items": [*view["items"], item]}


# ================================================================================ VP track ====
def vp_empty() -> dict:
    return {"version": 0, "pos": empty_position(), "initial": None, "gone": [], "track": []}


def _vp_fields(d: dict) -> dict:
    return {"side": d.get("side"), "delta": d.get("delta"), "total": d.get("total"),
            "reason": d.get("reason"), "rule": d.get("rule")}


def vp_apply(view: dict, line: dict) -> dict:
    """Every VPScored with the turn and phase it happened in; those inside a taken-back order
    are marked ``superseded`` (and do not count in the totals)."""
    if line["seq"] <= view["version"]:
        return view
    kind, d = line["type"], data_of(line)
    before, pos = step_position(view["pos"], line)
    new = {**view, "version": line["seq"], "pos": pos}
    if kind == "GameCreated" and view["initial"] is None:
        setup = d.get("setup")
        vp = setup.get("vp") if isinstance(setup, dict) else None
        new["initial"] = dict(vp) if isinstance(vp, dict) else {}
    elif kind == "VPScored":
        entry = {"seq": line["seq"], "turn": before[0], "phase": before[1], **_vp_fields(d),
                 "superseded": _in_ranges(line["seq"], view["gone"]), **source(line)}
        new["track"] = [*view["track"], entry]
    elif kind == "TakeBackAccepted":
        span = _superseded_range(d)
        if span is not None:
            new["gone"] = [*view["gone"], span]
            new["track"] = [e if e["superseded"] or not span[0] <= e["seq"] <= span[1] else {**e, "superseded": True}
                            for e in view["track"]]
    return new


def vp_totals(initial: dict | None, track: Iterable[dict]) -> dict:
    totals = dict(initial or {})
    for entry in track:
        if not entry["superseded"] and isinstance(entry["side"], str):
            totals[entry["side"]] = entry["total"]
    return totals


# ============================================================================= dice audit ====
def dice_empty() -> dict:
    return {"version": 0, "game_id": None, "pos": empty_position(), "gone_rolls": [], "epochs": [],
            "open": {}, "scheme": 1, "sealed": None, "input": "", "rolls": []}


def _roll_fields(d: dict) -> dict:
    return {"epoch": d.get("epoch"), "seat": d.get("seat"), "purpose": d.get("purpose"), "rule": d.get("rule"),
            "units": d.get("units"), "dice": d.get("dice"), "target": d.get("target"),
            "outcome": d.get("outcome"), "replaces": d.get("replaces")}


def roll_status(roll: dict, epoch: dict | None, redacted: bool, game_id: str | None) -> str:
    """"verified" (its epoch is revealed and every die equals the face derived from the seed,
    docs/dice.md section 2: scheme 2 with the roll's ``input`` when it has one), "failed"
    (revealed, and a die or the commitment does not match) or "unrevealed" (no reveal yet, or
    this viewer is not shown the dice)."""
    if epoch is None or epoch["seed"] is None or redacted:
        return "unrevealed"
    if epoch["status"] == "failed":
        return "failed"
    try:
        derived = dice.EpochDice(bytes.fromhex(epoch["seed"]), game_id, epoch["epoch"], epoch["client_entropy"] or "")
        for die in data_of(roll).get("dice"):
            if derived.face(die["nonce"], die["sides"], roll.get("input")) != die["value"]:
                return "failed"
    except (KeyError, TypeError, ValueError):
        return "failed"  # a die that cannot be recomputed does not verify
    return "verified"


def sealed_roll_status(roll: dict, epoch: dict | None, stream: dict | None, game_id: str | None) -> str:
    """A sealed roll's status: "sealed" until the sealed stream's seed is revealed, then
    "verified" (every die equals face2 of the seed, its epoch's client entropy and its input,
    docs/dice.md "Sealed rolls") or "failed"."""
    if stream is None or stream["seed"] is None:
        return "sealed"
    if stream["status"] == "failed" or epoch is None:
        return "failed"
    try:
        seed = bytes.fromhex(stream["seed"])
        for die in data_of(roll).get("dice"):
            if dice.face2(seed, game_id, epoch["epoch"], epoch["client_entropy"] or "", roll["input"],
                          die["nonce"], die["sides"]) != die["value"]:
                return "failed"
    except (KeyError, TypeError, ValueError):
        return "failed"
    return "verified"


def dice_apply(view: dict, line: dict) -> dict:
    """Every DiceRolled and SealedDiceRolled (turn, phase, superseded mark, status) and every
    epoch (commitment and, once revealed, its seed), and the sealed stream. Seeds come only from
    DiceEpochRevealed and SealedDiceRevealed lines; a reveal settles the status of every roll of
    its epoch (of the sealed stream: of every sealed roll); a SealedRollShown marks its roll shown
    (public before the end)."""
    if line["seq"] <= view["version"]:
        return view
    kind, d = line["type"], data_of(line)
    before, pos = step_position(view["pos"], line)
    new = {**view, "version": line["seq"], "pos": pos, "game_id": view["game_id"] or line.get("game_id")}
    if kind == "GameCreated":
        new["scheme"] = 2 if d.get("format") == 2 else 1  # format 2 rolls with scheme 2 (docs/dice.md)
    elif kind == "OrderAccepted" and view.get("scheme") == 2:
        new["input"] = d.get("order_id")  # the input of the rolls that follow
    elif kind == "DiceEpochOpened":
        epoch = {"epoch": d.get("epoch"), "opened_seq": line["seq"], "commitment": d.get("commitment"),
                 "client_entropy": d.get("client_entropy"), "revealed_seq": None, "seed": None, "status": "open"}
        new["epochs"] = [*view["epochs"], epoch]
        new["open"] = {**view["open"], _key(epoch["epoch"]): len(view["epochs"])}
    elif kind == "DiceRolled":
        at = view["open"].get(_key(d.get("epoch")))
        # The roll's own fields (seat, purpose, dice, outcome, ...) are read from its source's data
        # when the view is read (render_dice): kept once, not twice.
        roll = {"seq": line["seq"], "turn": before[0], "phase": before[1],
                "superseded": line["seq"] in view["gone_rolls"], "status": "unrevealed",
                "epoch_at": at, "redacted": bool(line.get("redacted")), **source(line)}
        if view.get("scheme") == 2:
            roll["input"] = view.get("input", "")
        roll["status"] = roll_status(roll, view["epochs"][at] if at is not None else None,
                                     roll["redacted"], new["game_id"])
        new["rolls"] = [*view["rolls"], roll]
    elif kind == "OrderAccepted":
        new["input"] = d.get("order_id") or ""  # the input of the rolls that follow
    elif kind == "DiceCommitted" and d.get("stream") == "sealed":
        new["sealed"] = {"committed_seq": line["seq"], "commitment": d.get("commitment"), "revealed_seq": None,
                         "seed": None, "status": "open", "first_roll": None}
    elif kind == "SealedDiceRolled":
        at = view["open"].get(_key(d.get("epoch")))
        roll = {"seq": line["seq"], "turn": before[0], "phase": before[1],
                "superseded": line["seq"] in view["gone_rolls"], "status": "sealed", "sealed": True,
                "input": view.get("input", ""), "epoch_at": at, "redacted": bool(line.get("redacted")),
                **source(line)}
        new["rolls"] = [*view["rolls"], roll]
        stream = view.get("sealed")
        if stream is not None and stream["first_roll"] is None:
            new["sealed"] = {**stream, "first_roll": line["seq"]}
    elif kind == "SealedRollShown":
        new["rolls"] = [r if r["seq"] != d.get("roll") or not r.get("sealed") else {**r, "shown": True}
                        for r in view["rolls"]]
    elif kind == "SealedDiceRevealed" and view.get("sealed") is not None and view["sealed"]["seed"] is None:
        stream = {**view["sealed"], "revealed_seq": line["seq"], "seed": d.get("seed")}
        try:
            matches = dice.commitment(bytes.fromhex(stream["seed"])) == stream["commitment"]
        except (TypeError, ValueError):
            matches = False
        stream["status"] = "revealed" if matches else "failed"
        new["sealed"] = stream
        new["rolls"] = [r if not r.get("sealed") else {**r, "status": sealed_roll_status(
            r, view["epochs"][r["epoch_at"]] if r["epoch_at"] is not None else None, stream, new["game_id"])}
            for r in view["rolls"]]
    elif kind == "DiceEpochRevealed":
        at = view["open"].get(_key(d.get("epoch")))
        if at is not None and view["epochs"][at]["seed"] is None:
            epoch = {**view["epochs"][at], "revealed_seq": line["seq"], "seed": d.get("seed")}
            try:
                matches = dice.commitment(bytes.fromhex(epoch["seed"])) == epoch["commitment"]
            except (TypeError, ValueError):
                matches = False
            epoch["status"] = "revealed" if matches else "failed"
            new["epochs"] = [*view["epochs"][:at], epoch, *view["epochs"][at + 1:]]
            # A sealed roll's status waits for the sealed seed (SealedDiceRevealed), not its epoch's.
            new["rolls"] = [r if r["epoch_at"] != at or r.get("sealed") else
                            {**r, "status": roll_status(r, epoch, r["redacted"], new["game_id"])}
                            for r in view["rolls"]]
    elif kind == "TakeBackAccepted":
        gone = _superseded_rolls(d)
        if gone:
            new["gone_rolls"] = sorted(set(view["gone_rolls"]) | set(gone))
            new["rolls"] = [r if r["superseded"] or r["seq"] not in gone else {**r, "superseded": True}
                            for r in view["rolls"]]
    return new


def dice_reach(view: dict, lines: Iterable[dict]) -> int | None:
    """The lowest seq of a roll already in ``view`` that folding ``lines`` onto it may change, or
    None: a reveal settles the rolls of its epoch (all made since the epoch opened), a take-back
    marks the rolls it names superseded, a sealed roll shown marks that roll. The projector reads only a view's newest rolls (its open
    chunk, ``store.CHUNKS``) and reads the older ones back when this says a fold needs them."""
    reach = None
    version, opened, epochs = view.get("version", 0), view.get("open", {}), view.get("epochs", [])
    for line in lines:
        if line["seq"] <= version:
            continue
        kind, d = line["type"], data_of(line)
        if kind == "DiceEpochRevealed":
            at = opened.get(_key(d.get("epoch")))
            if at is None or epochs[at]["seed"] is not None:
                continue  # an epoch opened by these lines has no roll in the view yet; a revealed one is settled
            low = epochs[at]["opened_seq"]
        elif kind == "SealedRollShown":
            low = d.get("roll")
            if not isinstance(low, int):
                continue
        elif kind == "SealedDiceRevealed":
            stream = view.get("sealed")
            if stream is None or stream["first_roll"] is None:
                continue  # no sealed roll in the view yet
            low = stream["first_roll"]
        elif kind == "TakeBackAccepted":
            gone = _superseded_rolls(d)
            if not gone:
                continue
            low = min(gone)
        else:
            continue
        if low <= version and (reach is None or low < reach):
            reach = max(low, 1)
    return reach


def vp_reach(view: dict, lines: Iterable[dict]) -> int | None:
    """As ``dice_reach`` for the VP track: a take-back marks the entries of its span superseded."""
    reach = None
    version = view.get("version", 0)
    for line in lines:
        if line["type"] != "TakeBackAccepted" or line["seq"] <= version:
            continue
        span = _superseded_range(data_of(line))
        if span is not None and span[0] <= version and span[1] >= 1 and (reach is None or span[0] < reach):
            reach = max(span[0], 1)
    return reach


# {projection: the lowest seq of an item a view holds already that a fold of some lines may change}
REACH: dict[str, Callable[[dict, Iterable[dict]], int | None]] = {"dice": dice_reach, "vp": vp_reach}


def _key(epoch: Any) -> str:
    """Epoch numbers as JSON object keys (they are ints in every real log)."""
    return str(epoch)


# ================================================================================ map state ====
_GAME_TOPIC = get_topic(Game)


def map_empty() -> dict:
    return {"version": 0, "game_id": None, "ruleset": None, "scenario": None, "state": None, "seats": {},
            "take_back": None, "ended": None, "whose_move": [], "chain_head": None, "last_activity": None,
            "position": None, "sandbox": None, "sealed": None, "clock": None}


def to_event(line: dict, ruleset: str | None = None) -> Any:
    """The domain event of an export line of a game of ``ruleset``, so that ``ruleset.evolve``
    folds it as the aggregate does (rulesets may look at the event's class)."""
    cls = event_class(line["type"], ruleset)
    envelope = {"originator_id": UUID(line["game_id"]), "originator_version": line["seq"],
                "timestamp": datetime.fromisoformat(line["timestamp"])}
    if line["type"] == "GameCreated":
        envelope["originator_topic"] = _GAME_TOPIC
    envelope["prev_hash"], envelope["hash"] = line["prev_hash"], line["hash"]
    data = line["data"]
    return cls(**dict(fields_from_data(cls, data), **envelope))


def map_apply(view: dict, line: dict, event: Any = None) -> dict:
    """The ruleset's state (``ruleset.evolve``, exactly the aggregate's fold) plus what the
    aggregate keeps beside it: seats and handles, a waiting take-back, the ending, whose move
    it is, the chain head and the time of the last event. ``event``: the line's domain event
    when the caller has decoded it already (else it is made from the line)."""
    if line["seq"] <= view["version"]:
        return view
    kind, d = line["type"], data_of(line)
    new = {**view, "version": line["seq"], "chain_head": line["hash"], "last_activity": line["timestamp"]}
    if kind == "GameCreated":
        new.update(game_id=line["game_id"], ruleset=d["ruleset"], scenario=d["scenario"],
                   seats={s: (SYSTEM if s == SYSTEM else "") for s in d["seats"]})
    elif kind == "SeatJoined":
        new["seats"] = {**view["seats"], d["seat"]: d["handle"]}
    elif kind == "TakeBackRequested":
        new["take_back"] = {"seat": d["seat"], "order_id": d["order_id"]}
    elif kind in ("TakeBackAccepted", "TakeBackDeclined"):
        new["take_back"] = None
    elif kind == "GameEnded":
        new["ended"] = {"winner": d["winner"], "level": d["level"], "reason": d["reason"], "rule": d["rule"]}
        new["sealed"] = None
    elif kind in SEALED_TYPES:
        new["sealed"] = sealed_apply(view.get("sealed"), kind, d, line["seq"])
    elif kind == "PositionSet":
        new["position"] = {"position": d["position"], "title": d["title"]}
    elif kind == "SandboxForked":
        new["sandbox"] = {"source": d["source"], "at": d["at"], "at_hash": d["at_hash"], "by": d["by"]}
    if view.get("clock") is not None or kind == "TimeControlSet":  # the aggregate's own fold (domain/clock.py)
        new["clock"] = clocks.apply(view.get("clock"), kind, d, line["seq"])
    rules = find_ruleset(new["ruleset"])
    new["state"] = rules.evolve(view["state"], event if event is not None else to_event(line, new["ruleset"]))
    new["whose_move"] = whose_move(new)
    return new


SEALED_TYPES = frozenset({"SealedRoundOpened", "OrderSealed", "OrderRevealed", "SealedOrdersCarriedOut"})


def sealed_apply(round_: dict | None, kind: str, d: dict, seq: int) -> dict | None:
    """The open sealed-orders round as the aggregate keeps it (Game.sealed): who has committed
    (with the hash) and who revealed; read through ``sealed_status``, which shows no hash."""
    if kind == "SealedRoundOpened":
        return {"round": d["round"], "rule": d["rule"], "seats": list(d["seats"]), "commitments": {}, "revealed": {}}
    if kind == "SealedOrdersCarriedOut" or round_ is None:
        return None
    if kind == "OrderSealed":
        return {**round_, "commitments": {**round_["commitments"], d["seat"]: {"commitment": d["commitment"],
                                                                              "seq": seq}}}
    return {**round_, "revealed": {**round_["revealed"], d["seat"]: {"seq": seq}}}


def sealed_of(view: dict) -> dict | None:
    """What anyone may read of the open sealed-orders round (Game.sealed_status), or None."""
    return sealed_status(view.get("sealed"))


def human_seats(view: dict) -> list[str]:
    return find_ruleset(view["ruleset"]).human_seats(list(view["seats"]))


def status(view: dict) -> str:
    if view["ended"] is not None:
        return "ended"
    return "active" if all(view["seats"][s] for s in human_seats(view)) else "waiting"


def whose_move(view: dict) -> list[str]:
    """As Game.whose_move: nobody before every seat has joined or after the end; during a
    take-back request, the seats that may answer it; else the ruleset's actors."""
    if status(view) != "active":
        return []
    if view["take_back"] is not None:
        return [s for s in human_seats(view) if s != view["take_back"]["seat"]]
    found = sealed_of(view)
    if found is not None:
        return found["must_commit"] or found["must_reveal"]
    return find_ruleset(view["ruleset"]).actors(view["state"])


def index_row(view: dict) -> dict:
    """The games index: the columns the game list filters and sorts on (a sandbox is left out
    unless asked for), and when the clock next has something due (the clock sweep's filter),
    from the map view."""
    return {"game_id": view["game_id"], "ruleset": view["ruleset"], "scenario": view["scenario"],
            "status": status(view), "version": view["version"], "chain_head": view["chain_head"],
            "last_activity": view["last_activity"], "ended": view["ended"],
            "next_due": clocks.next_due(view.get("clock")), "sandbox": view.get("sandbox") is not None,
            "seats": [{"seat": s, "handle": view["seats"][s] or None, "to_move": s in view["whose_move"]}
                      for s in human_seats(view)]}


# ================================================================================ registry ====
FOLDS: dict[str, tuple[Callable[[], dict], Callable[[dict, dict], dict]]] = {
    "map": (map_empty, map_apply),
    "vp": (vp_empty, vp_apply),
    "history": (history_empty, history_apply),
    "dice": (dice_empty, dice_apply),
}


def fold(name: str, lines: Iterable[dict], view: dict | None = None) -> dict:
    empty, apply = FOLDS[name]
    view = view if view is not None else empty()
    for line in lines:
        view = apply(view, line)
    return view


# ============================================================ reading, filtered per viewer ====
def _visible(rules: Any, game_id: str, items: list[dict], viewer: str | None,
             sealed_revealed: bool | None = None, shown_rolls: Iterable[int] = ()) -> list[tuple[dict, dict]]:
    """(item, its source line as ``viewer`` may see it): ``filter_lines`` of domain/visibility,
    the one place hidden information is filtered; an item whose line is hidden is left out."""
    lines = [{"game_id": game_id, "seq": it["seq"], "type": it["type"], "data": it["data"]} for it in items]
    shown = {line["seq"]: line for line in (lines if rules is None else filter_lines(
        rules, lines, viewer, sealed_revealed=sealed_revealed, shown_rolls=shown_rolls))}
    return [(it, shown[it["seq"]]) for it in items if it["seq"] in shown]


def render_history(view: dict, rules: Any = None, viewer: str | None = UMPIRE, game_id: str = "") -> list[dict]:
    """Turns → phases → operations → lines, each line's text described after filtering. Turns
    and phases are listed in the order they first appear. A line inside a taken-back order is
    marked ``superseded``, read from its TakeBackAccepted as the VP track and the dice audit are."""
    turns: dict[Any, dict[Any, list[dict]]] = {}
    built: dict[int, dict] = {}
    shown: dict[int, dict] = {}  # seq -> its history line, where annotations on it are put
    visible = _visible(rules, game_id, view["items"], viewer)
    gone = taken_back(line for _, line in visible)
    for item, line in visible:
        if is_annotation(line):
            _annotate(shown, line)
            continue
        op = built.get(item["op"])
        if op is None:
            meta = view["ops"][str(item["op"])]
            op = built[item["op"]] = {"order_id": meta["order_id"], "seat": meta["seat"], "first_seq": item["op"],
                                      "lines": []}
            turns.setdefault(meta["turn"], {}).setdefault(meta["phase"], []).append(op)
        entry = shown[item["seq"]] = {"seq": item["seq"], "type": item["type"], "text": describe(line, rules),
                                      "superseded": item["seq"] in gone, "annotations": []}
        op["lines"].append(entry)
    return [{"turn": turn, "phases": [{"phase": phase, "operations": ops} for phase, ops in phases.items()]}
            for turn, phases in turns.items()]


def taken_back(lines: Iterable[dict]) -> set[int]:
    """The seqs every TakeBackAccepted supersedes: its span (as the VP track marks) and its rolls
    (as the dice audit marks; they lie in the span)."""
    gone: set[int] = set()
    for line in lines:
        if line["type"] == "TakeBackAccepted":
            d = data_of(line)
            span = _superseded_range(d)
            if span is not None:
                gone.update(range(span[0], span[1] + 1))
            gone.update(_superseded_rolls(d))
    return gone


ANNOTATION = "AnnotationAdded"
_ANNOTATION_SIGNED = ("annotation", "private_annotation")  # domain/signatures.py ANNOTATION kinds


def is_annotation(line: dict) -> bool:
    """Whether ``line`` is an annotation or its signature: shown beside the event it is about."""
    return line["type"] == ANNOTATION or (line["type"] == "CommandSigned"
                                          and (line.get("data") or {}).get("kind") in _ANNOTATION_SIGNED)


def annotation_entry(line: dict) -> dict | None:
    """An annotation line (filtered for its reader) as the history and the replay show it, or None
    for a private one whose text this reader may not read (its line stays in the log and export)."""
    d = shown_data(line)
    if line["type"] != ANNOTATION or d.get("text") is None:
        return None
    return {"annotation_id": d["annotation_id"], "seq": line["seq"], "about_seq": d["about_seq"],
            "author": d["author"], "role": d["role"], "private": d["private"], "text": d["text"]}


def _annotate(shown: dict[int, dict], line: dict) -> None:
    """Put an annotation beside the event it is about."""
    entry = annotation_entry(line)
    target = shown.get(entry["about_seq"]) if entry else None
    if target is not None:
        target["annotations"].append({k: v for k, v in entry.items() if k != "about_seq"})


_VP_KEYS = ("seq", "turn", "phase", "side", "delta", "total", "reason", "rule", "superseded")
_ROLL_KEYS = ("seq", "epoch", "turn", "phase", "seat", "purpose", "rule", "units", "dice", "target", "outcome",
              "replaces", "superseded", "status", "sealed")
_ROLL_OWN = frozenset({"seq", "turn", "phase", "superseded", "status", "sealed"})  # the rest: _roll_fields of the source


def render_vp(view: dict, rules: Any = None, viewer: str | None = UMPIRE, game_id: str = "") -> tuple[dict, list[dict]]:
    track = []
    for item, line in _visible(rules, game_id, view["track"], viewer):
        entry = {k: item[k] for k in _VP_KEYS}
        if not fully_shown(line):
            entry.update(_vp_fields(data_of({"data": shown_data(line)})))
        track.append(entry)
    return vp_totals(view["initial"], track), track


def render_dice(view: dict, rules: Any = None, viewer: str | None = UMPIRE, game_id: str = "") -> tuple[list[dict], list[dict]]:
    rolls = []
    shown = [r["seq"] for r in view["rolls"] if r.get("shown")]
    for item, line in _visible(rules, game_id, view["rolls"], viewer, sealed_revealed(view), shown):
        fields = _roll_fields(data_of({"data": shown_data(line)}))  # the source as this viewer may see it
        roll = {k: item.get(k, False) if k in _ROLL_OWN else fields[k] for k in _ROLL_KEYS}
        if line.get("redacted") or fields["dice"] is None:  # the dice are not shown to this viewer
            roll["status"] = "sealed" if roll["sealed"] else "unrevealed"
        roll["text"] = describe(line, rules)
        rolls.append(roll)
    epochs = [{k: v for k, v in e.items()} for e in view["epochs"]]
    return rolls, epochs


def sealed_revealed(view: dict) -> bool:
    """Whether the dice view's sealed stream is revealed (its seed shown)."""
    stream = view.get("sealed")
    return stream is not None and stream["seed"] is not None


def render_sealed(view: dict) -> dict | None:
    """The sealed dice stream of the dice view: its commitment and, once revealed, its seed."""
    stream = view.get("sealed")
    return None if stream is None else {k: v for k, v in stream.items() if k != "first_roll"}


def render_state(view: dict, viewer: str | None) -> dict:
    return view_state(find_ruleset(view["ruleset"]), view["state"], viewer)
