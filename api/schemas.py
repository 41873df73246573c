"""Marshmallow schemas: requests are loaded at the door, responses dumped on the way out.

The OpenAPI document is generated from these classes.
"""

from __future__ import annotations

import functools

from flask import request
from marshmallow import INCLUDE, Schema, ValidationError, fields, validate
from werkzeug.datastructures import MultiDict

from api.jsonbody import BAD_KEY


@functools.cache
def shared(cls: type[Schema]) -> Schema:
    """The one instance of a schema class that every request uses (a load or dump keeps no state
    on it)."""
    return cls()


def refuse_repeated(args: MultiDict) -> None:
    """Every query parameter of the API is single-valued: one given more than once (``?at=1&at=2``)
    is a 422 naming it, never its first value read quietly (a proxy or a client that adds a
    parameter of its own would read another state than the one it asked for)."""
    repeated = {name: [f"given more than once ({len(values)} times): a query parameter is given once"]
                for name, values in args.lists() if len(values) > 1}
    if repeated:
        raise ValidationError(repeated)


def query_args(cls: type[Schema]) -> dict:
    """The request's query string loaded by ``cls``: the one place every route reads its query
    parameters (a parameter given more than once is refused, ``refuse_repeated``)."""
    refuse_repeated(request.args)
    return shared(cls).load(request.args)


def dump(cls: type[Schema], obj: object) -> object:
    """``obj`` dumped by the shared instance of ``cls``."""
    return shared(cls).dump(obj)


def one_line(value: str) -> None:
    """A name, code or seed: no tab or newline, nor any control character. The door
    (api/jsonbody.py) refuses the others in a body; a query string's values are checked here, as
    they reach the store's SQL (PostgreSQL refuses a NUL in text)."""
    if "\t" in value or "\n" in value:
        raise ValidationError("one line of text: no tab or newline")
    if BAD_KEY.search(value):
        raise ValidationError("text holding a control character, a bidirectional override or an unpaired surrogate")


class QueryWhole(fields.Integer):
    """A whole number in a query string (a seq, a turn, a limit, a version): ASCII digits only, as
    the event stream and the replays read theirs; int() would also take "٣", "+1", " 1" or "1_0"."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not (isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 16):
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)


class TimeControl(Schema):
    """A game's time control (domain/clock.py, TC 1-5); recorded in the log at creation."""

    days = fields.Integer(required=True, strict=True, validate=validate.Range(1, 60),
                          metadata={"description": "days the seats to move have, per move or per turn"})
    per = fields.String(load_default="move", validate=validate.OneOf(["move", "turn"]),
                        metadata={"description": "move: every order restarts the clock; turn: a change of the "
                                                 "seats to move or a new game turn"})
    reminders = fields.List(fields.Integer(strict=True), validate=validate.Length(max=5), load_default=None,
                            metadata={"description": "hours before a deadline the seats to move are reminded "
                                                     "(default [24] when days > 1); each below days * 24"})
    vacation_days = fields.Integer(load_default=0, strict=True, validate=validate.Range(0, 60),
                                   metadata={"description": "days of vacation each seat may take in the game"})
    on_timeout = fields.String(load_default="claim", validate=validate.OneOf(["claim", "pass"]),
                               metadata={"description": "claim: another seat may claim the win once a deadline "
                                                        "passed; pass: the ruleset's pass is given (freeform: "
                                                        "advance; a ruleset without one refuses it)"})


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
                           metadata={"description": "names the game's umpire from the start (1 to 80 printable "
                                                    "characters on one line): recorded in the log right after "
                                                    "the creation, so every seat joins knowing it"})
    position = fields.String(load_default=None, allow_none=True, validate=[validate.Length(min=1, max=40), one_line],
                             metadata={"description": "start from this named position of the ruleset "
                                                      "(GET /rulesets/{name}) instead of its standard set-up; "
                                                      "not with options"})
    time_control = fields.Nested(TimeControl, load_default=None, allow_none=True,
                                 metadata={"description": "deadlines, reminders, vacations and timeouts "
                                                          "(docs/api.md, \"Time control\"); none by default"})


class Sandbox(Schema):
    at = fields.Integer(required=True, strict=True,
                        metadata={"description": "the seq of the source game's event the sandbox starts right after"})
    public = fields.Boolean(load_default=False,
                            metadata={"description": "public games can be read by anyone, without a token"})
    umpire = fields.String(load_default=None, allow_none=True, validate=validate.Length(min=1, max=80),
                           metadata={"description": "names the sandbox's umpire from the start"})


class Join(Schema):
    invite_code = fields.String(required=True, validate=[validate.Length(min=1, max=100), one_line])
    handle = fields.String(required=True, validate=[validate.Length(min=1, max=80), one_line])
    email = fields.Email(load_default=None, allow_none=True,
                         metadata={"description": "for turn notifications; never shown to others"})
    notify = fields.Boolean(load_default=True)
    client_seed = fields.String(load_default="", validate=[validate.Length(max=200), one_line],
                                metadata={"description": "mixed into the dice of every later epoch"})
    public_key = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=100), metadata={
        "description": "the seat's Ed25519 public key, its 32 bytes as unpadded base64url (43 characters); "
                       "every later order of the seat must then be signed by it (docs/dice.md)"})


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


class SealedCommit(Schema):
    """A seat's commitment to its orders of the open sealed round (docs/dice.md, "Sealed orders")."""

    commitment = fields.String(required=True, metadata={
        "description": "SHA-256 (64 lowercase hex digits) of the canonical JSON of {game, seat, round, orders, "
                       "salt}; the orders and the salt stay with the client until the reveal"})


class SealedReveal(Schema):
    """A seat's sealed orders and the salt, revealed once every seat of the round has committed."""

    orders = fields.List(fields.Raw(), required=True, metadata={
        "description": "the orders sealed, in the order sealed: 0 to 20 order objects, each at most 16 KiB of JSON"})
    salt = fields.String(required=True, metadata={
        "description": "the salt sealed with them: 32 to 128 lowercase hex digits (at least 128 random bits)"})


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


class SignedHead(Schema):
    """A chain head signed by the server: Ed25519 over the canonical JSON of {game, seq, hash}."""

    game = fields.String()
    seq = fields.Integer()
    hash = fields.String()
    signature = fields.String(metadata={"description": "unpadded base64url of the 64-byte Ed25519 signature"})


class ServerKey(Schema):
    algorithm = fields.String()
    public_key = fields.String(metadata={"description": "unpadded base64url of the 32-byte Ed25519 public key"})


class CommandResult(Schema):
    game_id = fields.String()
    events = fields.List(fields.Nested(Line))
    version = fields.Integer()
    chain_head = fields.String()
    replayed = fields.Boolean()
    order_id = fields.String(allow_none=True)
    signed_head = fields.Nested(SignedHead, metadata={"description": "the chain head, signed by the server"})


class Created(Schema):
    """Keys are sent in this order (api/jsonbody.py does not sort them): docs/api.md's example."""

    game_id = fields.String()
    seats = fields.List(fields.String())
    admin_token = fields.String(metadata={"description": "shown once; proposes an umpire and, once the "
                                                         "seats agree, issues its tokens"})
    invites = fields.Dict(keys=fields.String(), values=fields.String(),
                          metadata={"description": "one invite code per seat, shown once"})
    version = fields.Integer()
    chain_head = fields.String()
    sandbox = fields.Dict(metadata={
        "description": "a sandbox's mark: {source, at, at_hash, by}; absent for a new game"})


class Joined(Schema):
    game_id = fields.String()
    seat = fields.String()
    token = fields.String(metadata={"description": "the seat's bearer token, shown once"})
    version = fields.Integer()
    chain_head = fields.String()
    signed_head = fields.Nested(SignedHead, metadata={"description": "the chain head, signed by the server"})
    umpire = fields.String(allow_none=True, metadata={
        "description": "the umpire appointed (who reads hidden information), or null; a seat that does not "
                       "agree ends the role with POST .../umpire/answer {\"accept\": false}"})
    confirmation_mail = fields.Boolean(metadata={
        "description": "true: a confirmation mail went to the email given; the seat's turn mails wait until its "
                       "link is followed. false with an email: too many were asked for (PUT .../notifications "
                       "with the email later asks again)"})


class UmpireProposal(Schema):
    umpire = fields.String(required=True, validate=validate.Length(min=1, max=80),
                           metadata={"description": "who is proposed: a name the seats will recognise, 1 to 80 printable "
                                                    "characters on one line"})


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


class Clock(Schema):
    control = fields.Nested(TimeControl, metadata={"description": "the time control, as recorded"})
    seats = fields.List(fields.String(), metadata={"description": "the seats the deadline runs for"})
    deadline = fields.String(allow_none=True, metadata={"description": "ISO 8601 UTC; null before the start "
                                                                        "and after the end"})
    seconds_left = fields.Integer(allow_none=True, metadata={"description": "by the server's clock, now"})
    timed_out = fields.Boolean(metadata={"description": "the deadline has passed (of a clock that does not run "
                                                        "here: as the log records it)"})
    running = fields.Boolean(metadata={"description": "false for a game imported from a file: its clock does not "
                                                      "run on this server, so seconds_left is null"})
    vacations = fields.Dict(metadata={"description": "{seat: {used, until, left}} of the seats that took vacation"})


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
    position = fields.Dict(allow_none=True, metadata={
        "description": "{position, title}: the named position the game started from; null for the standard set-up"})
    sandbox = fields.Dict(allow_none=True, metadata={
        "description": "{source, at, at_hash, by}: the game is a sandbox of game source forked right after its "
                       "event at (whose hash is at_hash); null for a game that is not"})
    clock = fields.Nested(Clock, allow_none=True, metadata={
        "description": "the time control and who is to move by when; null for a game without one"})


class Vacation(Schema):
    days = fields.Integer(required=True, strict=True, validate=validate.Range(1, 60),
                          metadata={"description": "whole days, within the seat's allowance left"})


class Extension(Schema):
    days = fields.Integer(required=True, strict=True, validate=validate.Range(1, 60),
                          metadata={"description": "whole days more for the seats to move"})


GAMES_PAGE_DEFAULT, GAMES_PAGE_MAX = 100, 500


class GameList(Schema):
    games = fields.List(fields.Nested(Summary))
    next_after = fields.String(allow_none=True, metadata={
        "description": "the cursor to pass as `after` for the next page (also in the Link header, rel=next); "
                       "null on the last page"})


class GameFilters(Schema):
    limit = QueryWhole(validate=validate.Range(min=1, max=GAMES_PAGE_MAX), load_default=GAMES_PAGE_DEFAULT,
                       metadata={"description": f"games per page ({GAMES_PAGE_DEFAULT} unless given, "
                                                f"at most {GAMES_PAGE_MAX})"})
    after = fields.String(validate=validate.Length(min=1, max=400), metadata={
        "description": "the `next_after` of the page before: this page lists the games after it"})
    status = fields.String(validate=validate.OneOf(["waiting", "active", "ended"]))
    ruleset = fields.String(validate=one_line)
    player = fields.String(validate=one_line, metadata={"description": "a player's handle"})
    turn_of = fields.String(validate=one_line, metadata={"description": "games where it is this handle's move"})
    sandbox = fields.Boolean(load_default=False,
                             metadata={"description": "true: sandboxes are listed too (they are left out by default)"})


class SeatToken(Schema):
    game_id = fields.String()
    seat = fields.String()
    token = fields.String(metadata={"description": "the seat's new bearer token, shown once; the one sent now "
                                                   "answers 401"})


class Me(Schema):
    game_id = fields.String()
    role = fields.String(validate=validate.OneOf(["admin", "seat", "umpire", "spectator"]),
                         metadata={"description": "what the token is in this game"})
    seat = fields.String(allow_none=True, metadata={"description": "a seat token's seat; null for the other roles"})
    name = fields.String(allow_none=True, metadata={"description": "a spectator token's name; null for the other roles"})


class LegalOrders(Schema):
    game_id = fields.String()
    seat = fields.String()
    version = fields.Integer()
    orders = fields.List(fields.Dict())
    take_back = fields.Boolean(metadata={"description": "whether this seat may ask now to take back its last "
                                                        "order (POST …/take-backs): false before its first order, "
                                                        "once another order followed, while a request waits, or "
                                                        "in a game without take-backs"})
