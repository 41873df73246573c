"""Annotations: comments on any event of a game's log (docs/api.md, "Annotations").

- ``POST /api/v1/games/{id}/annotations`` with an ``Idempotency-Key`` (the annotation's id):
  ``{"about_seq": SEQ, "text": ..., "private": false}``. A seat's token, the umpire's, or once the
  game has ended a spectator token; a keyed seat of a format-2 game signs it (Warlog-Signature,
  Warlog-Head). The same key again returns the first result.
- ``POST /api/v1/games/{id}/spectator-tokens`` (the admin's token): ``{"name": ...}``, a named
  spectator token: it reads the game as a spectator, a private game too, and annotates after the end.

History (GET .../history) shows each annotation beside the event it is about.
"""

from __future__ import annotations

from flask import Blueprint, jsonify, request
from marshmallow import Schema, ValidationError, fields, validate

from api.auth import ADMIN, SEAT, SPECTATOR, UMPIRE, access, caller_for
from api.games import MAX_ORDER_ID, _etag, _signed_by_seat, load, result_body, service
from api.jsonbody import BAD_KEY
from api.problems import ApiProblem
from api.schemas import dump, one_line
from domain.game import MAX_ANNOTATION

bp = Blueprint("annotations", __name__, url_prefix="/api/v1")

_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="warlog"'}


class AnnotationBody(Schema):
    about_seq = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=2**53 - 1),
                               metadata={"description": "the seq of the event the annotation is about"})
    text = fields.String(required=True, validate=validate.Length(min=1, max=MAX_ANNOTATION), metadata={
        "description": f"1 to {MAX_ANNOTATION} characters; tab and newline allowed, no other control character"})
    private = fields.Boolean(load_default=False, metadata={
        "description": "read by its seat and the umpire only (an umpire's: by the umpire only); "
                       "a spectator's annotations are public"})


def _not_blank(value: str) -> None:
    if not value.strip():
        raise ValidationError("a name is not only spaces")


class SpectatorTokenBody(Schema):
    name = fields.String(required=True, validate=[validate.Length(min=1, max=80), one_line, _not_blank],
                         metadata={"description": "the spectator's name, which its annotations carry"})


class SpectatorToken(Schema):
    game_id = fields.String()
    token = fields.String(metadata={"description": "the spectator's bearer token, shown once"})
    name = fields.String()


def _author() -> tuple:
    """(caller, role, author) of the annotation the request's token may write."""
    caller = caller_for(request.view_args["game_id"])
    if caller.role == SEAT:
        return caller, "seat", caller.seat
    if caller.role == UMPIRE:
        return caller, "umpire", None
    if caller.role == SPECTATOR and caller.name is not None:
        return caller, "spectator", caller.name
    if caller.role == ADMIN:
        raise ApiProblem("forbidden", "the admin token does not annotate: issue a spectator token "
                                      "(POST .../spectator-tokens) and annotate with it once the game has ended")
    raise ApiProblem("unauthorized", "annotating needs a token: a seat's, the umpire's, or a spectator token "
                                     "the game's admin issued", _CHALLENGE)


@bp.post("/games/<game_id>/annotations")
def annotate(game_id: str):
    caller, role, author = _author()
    annotation_id = request.headers.get("Idempotency-Key", "").strip()
    if not annotation_id or len(annotation_id) > MAX_ORDER_ID or BAD_KEY.search(annotation_id):
        raise ApiProblem("idempotency_key_required", f"send a client-chosen annotation id (1-{MAX_ORDER_ID} "
                                                     "characters, no control characters) as Idempotency-Key")
    signature, head = _signed_by_seat()
    body = load(AnnotationBody)
    result = service().annotate(caller.game_id, role, author, annotation_id, body["about_seq"], body["text"],
                                body["private"], signature=signature, head=head)
    response = jsonify(result_body(caller, result))
    response.status_code = 200 if result.replayed else 201
    if result.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return _etag(response, result.version)


@bp.post("/games/<game_id>/spectator-tokens")
def spectator_token(game_id: str):
    caller = caller_for(game_id, need=ADMIN)
    body = load(SpectatorTokenBody)
    token = access().issue_token(caller.game_id, SPECTATOR, body["name"].strip())
    response = jsonify(dump(SpectatorToken, {"game_id": caller.game_id, "token": token, "name": body["name"].strip()}))
    response.status_code = 201
    return response
