"""Marshmallow schemas: requests are loaded at the door, responses dumped on the way out.

The OpenAPI document is generated from these classes.
"""

from __future__ import annotations

import functools

from marshmallow import INCLUDE, Schema, fields, validate


@functools.cache
def shared(cls: type[Schema]) -> Schema:
    """The one instance of a schema class that every request uses. Building a schema (its
    fields, and the schemas nested in it) costs more than most dumps do, and marshmallow keeps
    nothing of a ``load`` or ``dump`` on the instance, so one serves every thread."""
    return cls()


class CreateGame(Schema):
    ruleset = fields.String(required=True, metadata={"description": "ruleset name, e.g. freeform"})
    scenario = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=80))
    options = fields.Dict(keys=fields.String(), load_default=dict,
                          metadata={"description": "ruleset options; freeform: sides, phases, last_turn, vp_track"})
    public = fields.Boolean(load_default=False,
                            metadata={"description": "public games can be read by anyone, without a token"})


class Join(Schema):
    invite_code = fields.String(required=True, validate=validate.Length(min=1, max=100))
    handle = fields.String(required=True, validate=validate.Length(min=1, max=80))
    email = fields.Email(load_default=None, allow_none=True,
                         metadata={"description": "for turn notifications; never shown to others"})
    notify = fields.Boolean(load_default=True)
    client_seed = fields.String(load_default="", validate=validate.Length(max=200),
                                metadata={"description": "mixed into the dice of every later epoch"})


class ClientSeed(Schema):
    client_seed = fields.String(required=True, validate=validate.Length(max=200))


class Order(Schema):
    """An order: ``kind`` plus the fields the ruleset defines (see legal-orders)."""

    class Meta:
        unknown = INCLUDE

    kind = fields.String(required=True, validate=validate.Length(min=1, max=40))


class TakeBackRequest(Schema):
    reason = fields.String(load_default="", validate=validate.Length(max=1000))


class TakeBackAnswer(Schema):
    accept = fields.Boolean(required=True)


class Line(Schema):
    """One event as an export line (docs/dice.md) plus its readable ``text``."""

    game_id = fields.String()
    seq = fields.Integer()
    type = fields.String()
    timestamp = fields.String()
    data = fields.Dict()
    prev_hash = fields.String()
    hash = fields.String()
    text = fields.String()
    redacted = fields.Boolean()


class CommandResult(Schema):
    game_id = fields.String()
    events = fields.List(fields.Nested(Line))
    version = fields.Integer()
    chain_head = fields.String()
    replayed = fields.Boolean()
    order_id = fields.String(allow_none=True)


class Created(Schema):
    game_id = fields.String()
    seats = fields.List(fields.String())
    invites = fields.Dict(keys=fields.String(), values=fields.String(),
                          metadata={"description": "one invite code per seat, shown once"})
    admin_token = fields.String(metadata={"description": "shown once; issues umpire tokens"})
    version = fields.Integer()
    chain_head = fields.String()


class Joined(Schema):
    game_id = fields.String()
    seat = fields.String()
    token = fields.String(metadata={"description": "the seat's bearer token, shown once"})
    version = fields.Integer()
    chain_head = fields.String()


class UmpireToken(Schema):
    game_id = fields.String()
    token = fields.String()


class Seat(Schema):
    seat = fields.String()
    handle = fields.String(allow_none=True)
    joined = fields.Boolean()


class Summary(Schema):
    game_id = fields.String()
    ruleset = fields.String()
    scenario = fields.String()
    public = fields.Boolean()
    status = fields.String(metadata={"description": "waiting (for seats), active or ended"})
    seats = fields.List(fields.Nested(Seat))
    whose_move = fields.List(fields.String())
    turn = fields.Integer(allow_none=True)
    phase = fields.String(allow_none=True)
    vp = fields.Dict()
    version = fields.Integer()
    chain_head = fields.String()
    last_activity = fields.String()
    ended = fields.Dict(allow_none=True)


class GameList(Schema):
    games = fields.List(fields.Nested(Summary))


class GameFilters(Schema):
    status = fields.String(validate=validate.OneOf(["waiting", "active", "ended"]))
    ruleset = fields.String()
    player = fields.String(metadata={"description": "a player's handle"})
    turn_of = fields.String(metadata={"description": "games where it is this handle's move"})


class LegalOrders(Schema):
    game_id = fields.String()
    seat = fields.String()
    version = fields.Integer()
    orders = fields.List(fields.Dict())
