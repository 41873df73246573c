"""The read side of the API: state (now and in the past), VP track, history, dice audit, events,
export, take-backs and integrity.

Every endpoint is readable by the game's seats, umpires and admin, and by anyone for a public
game (``caller_for``); what it returns is filtered for ``caller.viewer`` by domain/visibility —
state through ``view_state``, events through ``filter_lines`` — before anything is folded, so no
fold here ever sees what the caller may not. Every response carries ``ETag: "<version>"``, the
game's version when it was read (usable as If-Match for the next order).

Query strings are loaded by marshmallow schemas: a bad or unknown parameter is a 422 naming the
field, never a 500; the caller is resolved first, so a private game's existence is not revealed
by a 422.

History, VP and dice are read from the projections (projections/folds.py), caught up for the
game first. The folds left here (``superseded``, ``take_backs``, ``turn_start``, and
``dice_audit`` over the projection's dice fold) are pure functions over a list of export lines
(docs/dice.md). They read event data defensively (``.get``): a field hidden from a viewer holds
a commitment (or, in a format-1 game, None).
"""

from __future__ import annotations

from typing import Any, Iterator

from flask import Blueprint, Response, jsonify, request, url_for
from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from api.auth import UMPIRE, caller_for
from api.games import current_views, damage_of, lines_for, projections, server_key, service
from api.problems import ApiProblem
from api.schemas import Line, QueryWhole, dump, query_args
from domain import verify as verifying
from domain.rulesets import Ruleset, find_ruleset
from domain.service import parse_game_id
from domain.visibility import Walk, filter_lines, fully_shown
from projections import folds

bp = Blueprint("reads", __name__, url_prefix="/api/v1")

MAX_INT = 2**53  # bigger numbers are no seq, turn or limit; refused before they reach the store
PAGE_DEFAULT, PAGE_MAX = 100, 500
EXPORT_PAGE = 500

ENTERS = frozenset({"TurnAdvanced", "PhaseAdvanced"})


# =================================================================================== folds ====
def _data(line: dict) -> dict:
    data = line.get("data")
    return data if isinstance(data, dict) else {}


def superseded(lines: list[dict]) -> tuple[set[int], set[int]]:
    """The seqs inside taken-back orders (``superseded_from``..``superseded_to`` of every
    TakeBackAccepted), and the seqs of the rolls those take-backs list as superseded."""
    seqs: set[int] = set()
    rolls: set[int] = set()
    for line in lines:
        if line["type"] != "TakeBackAccepted":
            continue
        d = _data(line)
        first, last = d.get("superseded_from"), d.get("superseded_to")
        if isinstance(first, int) and isinstance(last, int):
            seqs.update(range(first, last + 1))
        rolls.update(s for s in d.get("superseded_rolls") or [] if isinstance(s, int))
    return seqs, rolls


def _walk(lines: list[dict]) -> Iterator[tuple[Any, Any]]:
    """The (turn, phase) in force before each line, then the one after the last line."""
    turn = phase = None
    before: dict[int, tuple[Any, Any]] = {}
    for line in lines:
        d, kind = _data(line), line["type"]
        if kind == "GameCreated":  # the set-up happens in the turn and phase it sets up
            setup = d.get("setup") if isinstance(d.get("setup"), dict) else {}
            turn, phase = setup.get("turn"), setup.get("phase")
        yield turn, phase
        before[line["seq"]] = (turn, phase)
        if kind in ENTERS:
            turn, phase = d.get("turn", turn), d.get("phase", phase)
        elif kind == "TakeBackAccepted":
            back = before.get(d.get("superseded_from"))
            restored = d.get("restored") if isinstance(d.get("restored"), dict) else {}
            turn, phase = back if back is not None else (restored.get("turn", turn), restored.get("phase", phase))
    yield turn, phase


def dice_audit(lines: list[dict]) -> tuple[list[dict], list[dict]]:
    """(rolls, epochs): every DiceRolled with its turn, phase, superseded mark and status, and
    every epoch with its commitment and, once revealed, its seed (projections/folds.py:
    ``dice_apply``).

    Seeds come only from DiceEpochRevealed lines. Epoch status: "open", "revealed" (the seed
    matches the commitment) or "failed" (it does not). Roll status: "verified" (its epoch is
    revealed and every die equals the face derived from the seed, docs/dice.md section 2),
    "failed" (revealed, and a die or the commitment does not match) or "unrevealed"."""
    return folds.render_dice(folds.fold("dice", lines))


def take_backs(lines: list[dict]) -> list[dict]:
    """Every take-back request with its answer ("accepted", "declined" or None while waiting)."""
    requests: list[dict] = []
    for line in lines:
        kind, d = line["type"], _data(line)
        if kind == "TakeBackRequested":
            requests.append({"seq": line["seq"], "seat": d.get("seat"), "order_id": d.get("order_id"),
                             "reason": d.get("reason"), "answer": None, "answered_by": None, "answer_seq": None})
        elif kind in ("TakeBackAccepted", "TakeBackDeclined"):
            waiting = [r for r in requests if r["answer"] is None and r["order_id"] == d.get("order_id")]
            if waiting:
                waiting[-1].update(answer="accepted" if kind == "TakeBackAccepted" else "declined",
                                   answered_by=d.get("seat"), answer_seq=line["seq"])
    return requests


def turn_start(lines: list[dict], turn: int, phase: str | None = None) -> int | None:
    """The seq after which the game stood at the start of ``turn`` (and ``phase``), or None.

    That is the TurnAdvanced or PhaseAdvanced that entered it, the earliest one not inside a
    taken-back order. The set-up's turn and phase (turn 1 and its first phase) were entered by
    no event: their start is the last line before the first OrderAccepted (all seats joined,
    the first dice epoch open), or the last line while no order has been given. Phase names
    match case-insensitively."""
    gone, _ = superseded(lines)
    entries: list[tuple[int, Any, Any]] = []
    first_order = next((i for i, line in enumerate(lines) if line["type"] == "OrderAccepted"), len(lines))
    if first_order > 0:
        entries.append((lines[first_order - 1]["seq"], *list(_walk(lines[:first_order]))[-1]))
    for line in lines:
        if line["type"] in ENTERS and line["seq"] not in gone:
            d = _data(line)
            entries.append((line["seq"], d.get("turn"), d.get("phase")))
    wanted = phase.casefold() if phase is not None else None
    for seq, t, p in entries:
        if t == turn and (wanted is None or (isinstance(p, str) and p.casefold() == wanted)):
            return seq
    return None


# ============================================================================ query strings ====
class _Query(Schema):
    """Unknown parameters are refused (a typo such as ?seq= must not silently read the present)."""


def _int(minimum: int, maximum: int = MAX_INT, **kwargs: Any) -> fields.Integer:
    return QueryWhole(validate=validate.Range(min=minimum, max=maximum), **kwargs)


class StateQuery(_Query):
    at = _int(1, metadata={"description": "the state right after event seq AT"})
    turn = _int(0, metadata={"description": "the state at the start of this turn (STF's campaign is turn 0)"})
    phase = fields.String(validate=validate.Length(min=1, max=200),
                          metadata={"description": "with turn: the start of this phase (case-insensitive)"})

    @validates_schema
    def _one_way(self, data: dict, **kwargs: Any) -> None:
        if "at" in data and ("turn" in data or "phase" in data):
            raise ValidationError("give either at, or turn (and phase), not both", "at")
        if "phase" in data and "turn" not in data:
            raise ValidationError("phase needs turn", "phase")


class DiceQuery(_Query):
    seat = fields.String(validate=validate.Length(min=1, max=200),
                         metadata={"description": "a seat of the game, or system (the server's rolls)"})
    turn = _int(0)
    purpose = fields.String(validate=validate.Length(max=4000),
                            metadata={"description": "case-insensitive substring of the purpose"})


class EventsQuery(_Query):
    after = _int(0, load_default=0)
    limit = _int(1, PAGE_MAX, load_default=PAGE_DEFAULT)


class NoQuery(_Query):
    pass


def query(schema: type[Schema]) -> dict:
    return query_args(schema)


# ================================================================================ responses ====
class StateBody(Schema):
    game_id = fields.String()
    version = fields.Integer(metadata={"description": "the version the state is at (the ETag is the game's current one)"})
    turn = fields.Raw(allow_none=True)
    phase = fields.Raw(allow_none=True)
    whose_move = fields.List(fields.String())
    ended = fields.Dict(allow_none=True)
    sealed = fields.Dict(allow_none=True, metadata={"description": "the open sealed-orders round: round, rule, "
                         "seats, committed, revealed, must_commit, must_reveal (docs/api.md); null when none"})
    state = fields.Dict()


class VPEntry(Schema):
    seq = fields.Integer()
    turn = fields.Raw(allow_none=True)
    phase = fields.Raw(allow_none=True)
    side = fields.Raw()
    delta = fields.Raw()
    total = fields.Raw()
    reason = fields.Raw(allow_none=True)
    rule = fields.Raw(allow_none=True)
    superseded = fields.Boolean()


class VPBody(Schema):
    game_id = fields.String()
    totals = fields.Dict()
    track = fields.List(fields.Nested(VPEntry))


class Annotation(Schema):
    annotation_id = fields.String()
    seq = fields.Integer(metadata={"description": "the seq of its AnnotationAdded"})
    author = fields.String(metadata={"description": "a seat, the umpire's name or a spectator's name"})
    role = fields.String(metadata={"description": "seat, umpire or spectator"})
    private = fields.Boolean()
    text = fields.String()


class HistoryLine(Schema):
    seq = fields.Integer()
    type = fields.String()
    text = fields.String()
    superseded = fields.Boolean(metadata={"description": "the event is part of an order taken back (a "
                                "TakeBackAccepted's superseded_from..superseded_to), as the dice audit marks its rolls"})
    annotations = fields.List(fields.Nested(Annotation), metadata={
        "description": "the annotations on this event the caller may read, oldest first (docs/api.md, Annotations)"})


class Operation(Schema):
    order_id = fields.String(allow_none=True)
    seat = fields.Raw(allow_none=True)
    first_seq = fields.Integer()
    lines = fields.List(fields.Nested(HistoryLine))


class Phase(Schema):
    phase = fields.Raw(allow_none=True)
    operations = fields.List(fields.Nested(Operation))


class Turn(Schema):
    turn = fields.Raw(allow_none=True)
    phases = fields.List(fields.Nested(Phase))


class HistoryBody(Schema):
    game_id = fields.String()
    turns = fields.List(fields.Nested(Turn))


class RollEntry(Schema):
    seq = fields.Integer()
    epoch = fields.Raw()
    turn = fields.Raw(allow_none=True)
    phase = fields.Raw(allow_none=True)
    seat = fields.Raw()
    purpose = fields.Raw(allow_none=True)
    rule = fields.Raw(allow_none=True)
    units = fields.Raw()
    dice = fields.Raw()
    target = fields.Raw(allow_none=True)
    outcome = fields.Raw(allow_none=True)
    replaces = fields.Raw(allow_none=True)
    superseded = fields.Boolean()
    status = fields.String(metadata={"description": "verified, failed or unrevealed; a sealed roll: sealed until "
                                                    "the sealed dice are revealed, then verified or failed"})
    sealed = fields.Boolean(metadata={"description": "a sealed roll (docs/dice.md, \"Sealed rolls\")"})
    text = fields.String()


class EpochEntry(Schema):
    epoch = fields.Raw()
    opened_seq = fields.Integer()
    commitment = fields.Raw()
    client_entropy = fields.Raw()
    revealed_seq = fields.Integer(allow_none=True)
    seed = fields.Raw(allow_none=True, metadata={"description": "null until the epoch is revealed"})
    status = fields.String(metadata={"description": "open, revealed or failed"})


class SealedStreamEntry(Schema):
    committed_seq = fields.Integer()
    commitment = fields.Raw()
    revealed_seq = fields.Integer(allow_none=True)
    seed = fields.Raw(allow_none=True, metadata={"description": "null until the game ends"})
    status = fields.String(metadata={"description": "open, revealed or failed"})


class DiceBody(Schema):
    game_id = fields.String()
    rolls = fields.List(fields.Nested(RollEntry))
    epochs = fields.List(fields.Nested(EpochEntry))
    sealed = fields.Nested(SealedStreamEntry, allow_none=True,
                           metadata={"description": "the sealed dice stream; null in a game without one"})


class EventsBody(Schema):
    game_id = fields.String()
    events = fields.List(fields.Nested(Line))
    next_after = fields.Integer(allow_none=True)


class TakeBackEntry(Schema):
    seq = fields.Integer()
    seat = fields.Raw()
    order_id = fields.Raw()
    reason = fields.Raw(allow_none=True)
    answer = fields.String(allow_none=True, metadata={"description": "accepted, declined or null while waiting"})
    answered_by = fields.Raw(allow_none=True)
    answer_seq = fields.Integer(allow_none=True)


class TakeBacksBody(Schema):
    game_id = fields.String()
    requests = fields.List(fields.Nested(TakeBackEntry))


class Failure(Schema):
    line = fields.Integer()
    message = fields.String()


class IntegrityBody(Schema):
    game_id = fields.String()
    ok = fields.Boolean()
    events = fields.Integer()
    chain_head = fields.String()
    epochs_revealed = fields.Integer()
    rolls_verified = fields.Integer()
    failures = fields.List(fields.Nested(Failure))


# ==================================================================================== views ====
DAMAGED_HEADER = "Warlog-Damaged"


@bp.after_app_request
def damaged_header(response: Response) -> Response:
    """Every API read a caller was allowed to make of a game whose stored log has a damaged line
    no operator has accepted says so: ``Warlog-Damaged: <first such line>`` (docs/api.md)."""
    game_id = (request.view_args or {}).get("game_id")
    if (game_id and request.method in ("GET", "HEAD") and response.status_code < 400
            and request.path.startswith("/api/")):
        damage = damage_of(str(parse_game_id(game_id)))  # the caller was let in: a valid id
        if damage.open:
            response.headers[DAMAGED_HEADER] = str(damage.open[0].seq)
    return response


def _etag(response: Response, version: int) -> Response:
    response.headers["ETag"] = f'"{version}"'
    return response


def _visible(game_id: str, viewer: str | None) -> tuple[Ruleset, list[dict], int]:
    """The ruleset, the whole log as ``viewer`` may see it, and the version it was read at."""
    lines = service().lines(game_id)
    rules = find_ruleset(lines[0]["data"]["ruleset"])
    return rules, filter_lines(rules, lines, viewer), lines[-1]["seq"]


@bp.get("/games/<game_id>/state")
def state(game_id: str):
    """The state now, right after event ``at``, or at the start of ``turn`` (and ``phase``).

    ``version`` in the body is the version of the state shown; the ETag is the game's current
    version. For ``turn``/``phase`` see ``turn_start``: the start of turn 1 (its first phase) is
    the state just before the first order."""
    caller = caller_for(game_id)
    params = query(StateQuery)
    view = current_views(caller.game_id, ("map",))["map"]
    seq = view["version"]
    if "at" in params:
        if params["at"] > view["version"]:
            raise ValidationError({"at": [f"seq {params['at']} is past the last event ({view['version']})"]})
        seq = params["at"]
    elif "turn" in params:
        rules, lines, _ = _visible(caller.game_id, caller.viewer)
        found = turn_start(lines, params["turn"], params.get("phase"))
        if found is None:
            what = f"turn {params['turn']}" + (f", phase {params['phase']!r}" if "phase" in params else "")
            raise ApiProblem("not_found", f"{what} has not been reached in this game")
        seq = found
    # Now: the map view, caught up to the game's current version (read-your-writes). Time travel:
    # the map view at that seq, from the nearest map checkpoint (every CHECKPOINT_EVERY events,
    # caught up with the view above) plus the map fold of the events after it; docs/projections.md.
    at = view if seq == view["version"] else _map_at(caller.game_id, seq)
    shown = folds.render_state(at, caller.viewer)
    body = {"game_id": caller.game_id, "version": at["version"], "turn": shown.get("turn"),
            "phase": shown.get("phase"), "whose_move": at["whose_move"], "ended": at["ended"],
            "sealed": folds.sealed_of(at), "state": shown}
    return _etag(jsonify(dump(StateBody, body)), view["version"])


def _map_at(game_id: str, seq: int) -> dict:
    """The map view right after ``seq``: from the projections' checkpoints, or folded from the
    stored log for a game with recorded damage (``current_views``)."""
    if damage_of(game_id):
        lines = service().lines(game_id, limit=seq)
        with service().folding(game_id):
            return folds.fold("map", lines)
    return projections().map_at(game_id, seq)


def _views(game_id: str, name: str) -> tuple[Ruleset, dict, int]:
    """The ruleset, the unfiltered view ``name`` of a game caught up to its current version
    (read-your-writes), and that version. Filtering for the caller happens in ``folds.render_*``."""
    views = current_views(game_id, ("map", name))
    return find_ruleset(views["map"]["ruleset"]), views[name], views[name]["version"]


@bp.get("/games/<game_id>/vp")
def vp(game_id: str):
    caller = caller_for(game_id)
    query(NoQuery)
    rules, view, version = _views(caller.game_id, "vp")
    totals, track = folds.render_vp(view, rules, caller.viewer, caller.game_id)
    return _etag(jsonify(dump(VPBody, {"game_id": caller.game_id, "totals": totals, "track": track})), version)


@bp.get("/games/<game_id>/history")
def get_history(game_id: str):
    caller = caller_for(game_id)
    query(NoQuery)
    rules, view, version = _views(caller.game_id, "history")
    turns = folds.render_history(view, rules, caller.viewer, caller.game_id)
    return _etag(jsonify(dump(HistoryBody, {"game_id": caller.game_id, "turns": turns})), version)


@bp.get("/games/<game_id>/dice")
def get_dice(game_id: str):
    """The dice audit; ``seat`` (exact), ``turn`` and ``purpose`` (case-insensitive substring)
    filter the rolls, never the epochs."""
    caller = caller_for(game_id)
    params = query(DiceQuery)
    views = current_views(caller.game_id, ("map", "dice"))
    rules, view = find_ruleset(views["map"]["ruleset"]), views["dice"]
    version = view["version"]
    rolls, epochs = folds.render_dice(view, rules, caller.viewer, caller.game_id)
    seats = [*views["map"]["seats"], *sorted({r["seat"] for r in rolls} - set(views["map"]["seats"]))]
    if params.get("seat") is not None and params["seat"] not in seats:  # a typo must not read as "no rolls"
        raise ValidationError({"seat": [f"no seat {params['seat']!r} in this game: its seats are {', '.join(seats)}"]})
    sealed = folds.render_sealed(view)
    purpose = params.get("purpose", "").casefold()
    rolls = [r for r in rolls
             if params.get("seat") in (None, r["seat"]) and params.get("turn") in (None, r["turn"])
             and (not purpose or purpose in str(r["purpose"] or "").casefold())]
    body = {"game_id": caller.game_id, "rolls": rolls, "epochs": epochs, "sealed": sealed}
    return _etag(jsonify(dump(DiceBody, body)), version)


@bp.get("/games/<game_id>/events")
def events(game_id: str):
    """A page of events after seq ``after``. ``next_after`` is the seq to continue from, or null
    at the end of the log. What is hidden from the caller is a commitment in its line (format 2)
    or removed (format 1); no line is left out."""
    caller = caller_for(game_id)
    params = query(EventsQuery)
    game = service().get_game(caller.game_id)
    after, limit = params["after"], params["limit"]
    page = service().lines(caller.game_id, after=after, limit=limit + 1) if after < game.version else []
    more = len(page) > limit
    page = page[:limit]
    next_after = page[-1]["seq"] if more else None
    body = {"game_id": caller.game_id, "events": lines_for(caller, game.rules, page, sealed_revealed=game.sealed_revealed,
                                                       shown_rolls=game.shown_rolls),
            "next_after": next_after}
    response = jsonify(dump(EventsBody, body))
    if more:
        link = url_for("reads.events", game_id=caller.game_id, after=next_after, limit=limit)
        response.headers["Link"] = f'<{link}>; rel="next"'
    return _etag(response, max([game.version] + [line["seq"] for line in page]))


@bp.get("/games/<game_id>/export")
def export(game_id: str):
    """The log as JSON Lines (docs/dice.md section 5), filtered for the caller and streamed in
    pages; it ends at the version in the ETag. A format-2 game's file begins with its header line
    (export version 2, the server's key); hidden fields are commitments in it, and every caller's
    file verifies; an umpire's opens every one. A format-1 game's file has no header (the key is
    in the ``Warlog-Server-Key`` header), and anyone's but an umpire's has redacted lines marked
    ``"redacted": true``, which do not verify."""
    caller = caller_for(game_id)
    query(NoQuery)
    svc = service()
    game = svc.get_game(caller.game_id)
    rules, viewer, version = game.rules, caller.viewer, game.version
    first = svc.lines(caller.game_id, after=0, limit=EXPORT_PAGE)  # a missing game fails here, not mid-stream
    walk = Walk()  # one walk through every page: an order's signature is hidden with the order
    key, export_version = server_key().public_key, verifying.export_version(game.format)

    def generate() -> Iterator[str]:
        if export_version is not None:
            yield verifying.header_line(key, export_version) + "\n"
        page = first
        while page:
            page = [line for line in page if line["seq"] <= version]
            for line in filter_lines(rules, page, viewer, walk, sealed_revealed=game.sealed_revealed,
                                     shown_rolls=game.shown_rolls):
                yield verifying.dumps(line) + "\n"
            if not page or page[-1]["seq"] >= version:
                return
            page = svc.lines(caller.game_id, after=page[-1]["seq"], limit=EXPORT_PAGE)

    response = Response(generate(), mimetype="application/x-ndjson")
    response.headers["Content-Disposition"] = f'attachment; filename="game-{caller.game_id}.jsonl"'
    # The key that signs this game's heads: `warlog export` writes it as a format-1 file's header line.
    response.headers["Warlog-Server-Key"] = key
    return _etag(response, version)


@bp.get("/games/<game_id>/take-backs")
def get_take_backs(game_id: str):
    caller = caller_for(game_id)
    query(NoQuery)
    _, lines, version = _visible(caller.game_id, caller.viewer)
    return _etag(jsonify(dump(TakeBacksBody, {"game_id": caller.game_id, "requests": take_backs(lines)})), version)


@bp.get("/games/<game_id>/integrity")
def integrity(game_id: str):
    """``check_integrity`` of the stored log. A failure at a line the caller may not see in full
    (hidden or redacted for this viewer) is reported without its message, which could quote
    hidden data; so is every failure when the log cannot even be read as lines."""
    caller = caller_for(game_id)
    query(NoQuery)
    report = service().check_integrity(caller.game_id)
    withheld = set() if caller.viewer == UMPIRE or report.ok else _not_shown(caller.game_id, caller.viewer)
    failures = [{"line": n, "message": m if withheld is not None and n not in withheld
                 else f"line {n} does not verify (the details are shown to umpires)"}
                for n, m in report.failures]
    body = {"game_id": caller.game_id, "ok": report.ok, "events": report.events, "chain_head": report.chain_head,
            "epochs_revealed": report.epochs_revealed, "rolls_verified": report.rolls_verified, "failures": failures}
    return _etag(jsonify(dump(IntegrityBody, body)), report.events)


def _not_shown(game_id: str, viewer: str | None) -> set[int] | None:
    """Seqs hidden or redacted for ``viewer``; None when the log cannot be read as lines."""
    try:
        lines = service().lines(game_id)
        rules = find_ruleset(lines[0]["data"]["ruleset"])
        shown = {line["seq"] for line in filter_lines(rules, lines, viewer) if fully_shown(line)}
    except Exception:  # a tampered row that does not decode or fit its type: withhold every detail
        return None
    return {line["seq"] for line in lines} - shown
