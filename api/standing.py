"""Standing orders: what a seat leaves to answer its decisions while it is not to move
(docs/rulesets.md, Standing orders).

- ``PUT /api/v1/games/{id}/standing-orders/{policy_id}`` (the seat's token):
  ``{"decision_kind": ..., "policy": ...}``; allowed whoever is to move. The ruleset checks the
  policy (422 naming the rule); the same policy again records nothing.
- ``GET /api/v1/games/{id}/standing-orders``: the caller's seat's standing orders and what the
  ruleset accepts; an umpire reads every seat's. Nobody else reads them.
- ``DELETE /api/v1/games/{id}/standing-orders/{policy_id}`` (the seat's token): cancel one.

A keyed seat of a format-2 game signs a set and a cancel (Warlog-Signature, Warlog-Head).
"""

from __future__ import annotations

from flask import Blueprint, jsonify
from marshmallow import Schema, fields, validate

from api.auth import SEAT, UMPIRE, caller_for
from api.games import _etag, _signed_by_seat, load, result_body, service
from api.problems import ApiProblem
from api.schemas import dump, one_line

bp = Blueprint("standing", __name__, url_prefix="/api/v1")


class StandingOrderBody(Schema):
    decision_kind = fields.String(required=True, validate=[validate.Length(min=1, max=80), one_line],
                                  metadata={"description": "the kind of pending decision the policy answers, "
                                                           "one of the listing's `accepts`"})
    policy = fields.Raw(required=True, metadata={
        "description": "the policy, in the ruleset's form (the listing's `accepts` describes it); at most 16 KiB "
                       "of JSON. Proving ground PG 5.4: {\"fire\": \"always\" or \"never\", \"ask_at\": [hexes]}"})


class StandingOrderEntry(Schema):
    seat = fields.String()
    policy_id = fields.String()
    decision_kind = fields.String()
    policy = fields.Raw()
    rule = fields.String(metadata={"description": "the rule that lets the seat leave it"})
    set = fields.Integer(metadata={"description": "the seq of the StandingOrderSet that set it"})


class Accepted(Schema):
    rule = fields.String()
    description = fields.String()


class StandingOrders(Schema):
    game_id = fields.String()
    seat = fields.String(allow_none=True, metadata={"description": "the caller's seat; null for an umpire"})
    version = fields.Integer()
    accepts = fields.Dict(keys=fields.String(), values=fields.Nested(Accepted), metadata={
        "description": "{decision kind: {rule, description}}: what the ruleset takes standing orders for"})
    standing_orders = fields.List(fields.Nested(StandingOrderEntry))


@bp.put("/games/<game_id>/standing-orders/<policy_id>")
def set_standing_order(game_id: str, policy_id: str):
    caller = caller_for(game_id, need=SEAT)
    signature, head = _signed_by_seat()
    body = load(StandingOrderBody)
    result = service().set_standing_order(caller.game_id, caller.seat, policy_id, body["decision_kind"],
                                          body["policy"], signature=signature, head=head)
    return _etag(jsonify(result_body(caller, result)), result.version)


@bp.delete("/games/<game_id>/standing-orders/<policy_id>")
def cancel_standing_order(game_id: str, policy_id: str):
    caller = caller_for(game_id, need=SEAT)
    signature, head = _signed_by_seat()
    result = service().cancel_standing_order(caller.game_id, caller.seat, policy_id, signature=signature, head=head)
    return _etag(jsonify(result_body(caller, result)), result.version)


@bp.get("/games/<game_id>/standing-orders")
def list_standing_orders(game_id: str):
    caller = caller_for(game_id)
    if caller.role not in (SEAT, UMPIRE):
        raise ApiProblem("forbidden", "standing orders are read by their seat and the umpire only")
    game = service().get_game(caller.game_id)
    seats = [caller.seat] if caller.role == SEAT else list(game.seats)
    orders = [{"seat": seat, **entry} for seat in seats for entry in game.standing_orders_of(seat)]
    accepts = {kind: {"rule": p.rule, "description": p.description}
               for kind, p in game.rules.standing_policies().items()}
    body = {"game_id": caller.game_id, "seat": caller.seat, "version": game.version, "accepts": accepts,
            "standing_orders": orders}
    return _etag(jsonify(dump(StandingOrders, body)), game.version)
