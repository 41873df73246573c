"""Marshmallow schemas: requests are loaded at the door, responses dumped on the way out.

The OpenAPI document is generated from these classes.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from marshmallow import INCLUDE, Schema, ValidationError, fields, missing, validate
from marshmallow.decorators import POST_DUMP, PRE_DUMP


@functools.cache
def shared(cls: type[Schema]) -> Schema:
    """The one instance of a schema class that every request uses. Building a schema (its
    fields, and the schemas nested in it) costs more than most dumps do, and marshmallow keeps
    nothing of a ``load`` or ``dump`` on the instance, so one serves every thread."""
    return cls()


def dump(cls: type[Schema], obj: Any) -> Any:
    """``shared(cls).dump(obj)``, the same result, faster for what responses hold: dicts of
    strings, integers, booleans and lists and dicts of them. marshmallow converts each value
    through its field (``Field.serialize``: about 70 calls for an order's result); for a value
    that already is the plain JSON type its field gives, that conversion returns the value as it
    is, so a path made once per schema (``_dumper``) copies it instead. Any other value (a
    wrong type, an object, an unusual field) and the whole object is dumped by marshmallow."""
    schema = shared(cls)
    fast = _dumper(schema)
    if fast is not None:
        try:
            return fast(obj)
        except _NotPlain:
            pass
    return schema.dump(obj)


class _NotPlain(Exception):
    """A value marshmallow would convert (or an object, not a dict): dump it with marshmallow."""


Convert = Callable[[Any], Any]


def _same(value: Any) -> Any:
    return value


def _exactly(kind: type) -> Convert:
    """What String, Integer or Boolean give for None or a value of exactly ``kind``."""
    def convert(value: Any) -> Any:
        if value is None or type(value) is kind:
            return value
        raise _NotPlain
    return convert


def _field(field: fields.Field) -> Convert | None:
    """What ``field._serialize`` gives for the plain values it expects (raising ``_NotPlain`` for
    any other value), or None for a field this path does not take."""
    kind = type(field)
    if kind is fields.Raw:
        return _same
    if kind in (fields.String, fields.Email):
        return _exactly(str)
    if kind is fields.Integer and not field.as_string:
        return _exactly(int)
    if kind is fields.Boolean:
        return _exactly(bool)
    if kind is fields.Dict:
        keys = field.key_field
        values = _field(field.value_field) if field.value_field is not None else _same
        if (keys is not None and type(keys) is not fields.String) or values is None:
            return None
        checked = keys is not None

        def mapping(value: Any) -> Any:
            if value is None:
                return None
            if type(value) is not dict or (checked and not all(type(k) is str for k in value)):
                raise _NotPlain
            return {k: values(v) for k, v in value.items()}
        return mapping
    if kind is fields.List:
        inner = _field(field.inner)
        if inner is None:
            return None
        return _sequence(inner)
    if kind is fields.Nested:
        nested = _dumper(field.schema)
        if nested is None:
            return None
        if field.many or field.schema.many:
            return _sequence(nested)
        return lambda value: None if value is None else nested(value)
    return None


def _sequence(each: Convert) -> Convert:
    def sequence(value: Any) -> Any:
        if value is None:
            return None
        if type(value) is not list:
            raise _NotPlain
        return [each(v) for v in value]
    return sequence


@functools.cache
def _dumper(schema: Schema) -> Convert | None:
    """For a schema without dump hooks whose fields all have a plain path: a function dumping a
    dict as ``schema.dump`` does (the same keys, in the same order; a key the dict lacks left
    out), raising ``_NotPlain`` where it cannot. None for any other schema."""
    if (schema._hooks[PRE_DUMP] or schema._hooks[POST_DUMP] or schema.dict_class is not dict
            or type(schema).get_attribute is not Schema.get_attribute):
        return None
    parts = []
    for name, field in schema.dump_fields.items():
        source = field.attribute or name
        convert = _field(field)
        if convert is None or field.dump_default is not missing or "." in source:
            return None
        # marshmallow reads a key a dict lacks as the dict's attribute (``get_value``): a field
        # named like a dict method would find the method there.
        parts.append((source, field.data_key or name, convert, hasattr(dict, source)))

    def dump_one(obj: Any) -> dict:
        if type(obj) is not dict:
            raise _NotPlain
        out = {}
        for source, key, convert, shadowed in parts:
            if source in obj:
                out[key] = convert(obj[source])
            elif shadowed:
                raise _NotPlain
        return out
    if schema.many:
        return _sequence(dump_one)
    return dump_one


def one_line(value: str) -> None:
    """A name, code or seed: no tab or newline (the door, api/jsonbody.py, refuses other controls)."""
    if "\t" in value or "\n" in value:
        raise ValidationError("one line of text: no tab or newline")


class CreateGame(Schema):
    ruleset = fields.String(required=True, validate=[validate.Length(max=40), one_line],
                            metadata={"description": "ruleset name, e.g. freeform"})
    scenario = fields.String(load_default=None, allow_none=True, validate=[validate.Length(max=80), one_line])
    options = fields.Dict(keys=fields.String(), load_default=dict,
                          metadata={"description": "ruleset options; freeform: sides (1-8 names), phases (1-30 names), "
                                                   "each name 1-40 printable characters on one line; last_turn "
                                                   "(1-9999); vp_track (docs/rulesets.md)"})
    public = fields.Boolean(load_default=False,
                            metadata={"description": "public games can be read by anyone, without a token"})
    umpire = fields.String(load_default=None, allow_none=True, validate=validate.Length(min=1, max=80),
                           metadata={"description": "names the game's umpire from the start: recorded in the log "
                                                    "right after the creation, so every seat joins knowing it"})


class Join(Schema):
    invite_code = fields.String(required=True, validate=[validate.Length(min=1, max=100), one_line])
    handle = fields.String(required=True, validate=[validate.Length(min=1, max=80), one_line])
    email = fields.Email(load_default=None, allow_none=True,
                         metadata={"description": "for turn notifications; never shown to others"})
    notify = fields.Boolean(load_default=True)
    client_seed = fields.String(load_default="", validate=[validate.Length(max=200), one_line],
                                metadata={"description": "mixed into the dice of every later epoch"})


class ClientSeed(Schema):
    client_seed = fields.String(required=True, validate=[validate.Length(max=200), one_line])


class Order(Schema):
    """An order: ``kind`` plus the fields the ruleset defines (see legal-orders). At most 16 KiB of
    JSON (the domain's ``MAX_ORDER_BYTES``); each free text within the ruleset's limit."""

    class Meta:
        unknown = INCLUDE

    kind = fields.String(required=True, validate=[validate.Length(min=1, max=40), one_line],
                         metadata={"description": "the order's kind; its other fields are the ruleset's (at most "
                                                  "16 KiB of JSON in all; freeform: a note's text 4,000 "
                                                  "characters, a reason 1,000, a purpose 200)"})


class TakeBackRequest(Schema):
    reason = fields.String(load_default="", validate=validate.Length(max=1000),
                           metadata={"description": "free text; tab and newline allowed, no other control character"})


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
    admin_token = fields.String(metadata={"description": "shown once; proposes an umpire and, once the "
                                                         "seats agree, issues its tokens"})
    version = fields.Integer()
    chain_head = fields.String()


class Joined(Schema):
    game_id = fields.String()
    seat = fields.String()
    token = fields.String(metadata={"description": "the seat's bearer token, shown once"})
    version = fields.Integer()
    chain_head = fields.String()
    umpire = fields.String(allow_none=True, metadata={
        "description": "the umpire appointed (who reads hidden information), or null; a seat that does not "
                       "agree ends the role with POST .../umpire/answer {\"accept\": false}"})


class UmpireProposal(Schema):
    umpire = fields.String(required=True, validate=validate.Length(min=1, max=80),
                           metadata={"description": "who is proposed: a name the seats will recognise"})


class UmpireAnswer(Schema):
    accept = fields.Boolean(required=True)


class UmpireToken(Schema):
    game_id = fields.String()
    token = fields.String(metadata={"description": "the umpire's bearer token, shown once"})
    token_id = fields.String(metadata={"description": "names the token in the listing and to revoke it"})
    umpire = fields.String(metadata={"description": "the umpire appointed, as the log names it"})


class UmpireTokenEntry(Schema):
    token_id = fields.String()
    created_at = fields.String()
    revoked_at = fields.String(allow_none=True, metadata={"description": "null while the token works"})


class UmpireTokens(Schema):
    game_id = fields.String()
    umpire = fields.String(allow_none=True, metadata={"description": "the umpire appointed now, or null"})
    proposal = fields.Dict(allow_none=True, metadata={"description": "a proposal waiting for the seats: "
                                                                      "{umpire, accepted: [seats]}, or null"})
    limit = fields.Integer(metadata={"description": "the most live umpire tokens a game may have"})
    tokens = fields.List(fields.Nested(UmpireTokenEntry))


class Seat(Schema):
    seat = fields.String()
    handle = fields.String(allow_none=True)
    joined = fields.Boolean()


class Damaged(Schema):
    line = fields.Integer(metadata={"description": "the first line failing verification not accepted by an "
                                                   "operator, else the first accepted one"})
    accepted = fields.Boolean(metadata={"description": "false: the game takes no orders (409 damaged_log)"})
    accepted_at = fields.String(allow_none=True)
    reason = fields.String(allow_none=True, metadata={"description": "the operator's, when accepted"})


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
    damaged = fields.Nested(Damaged, allow_none=True, metadata={
        "description": "null, or the stored log fails verification (docs/operations.md)"})


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
