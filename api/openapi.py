"""The API described once: a table of operations, served as OpenAPI and as a readable page.

``OPERATIONS`` is the only place an endpoint is described: its summary, who may call it, its
parameters, its request and response bodies (marshmallow schemas from ``api/schemas.py`` or plain
JSON Schema) and the problem codes it can answer with. From it:

- ``GET /api/v1/openapi.json``: an OpenAPI 3.1 document built with apispec's MarshmallowPlugin;
- ``GET /api/docs``: the same document rendered on the server as one HTML page, with an anchor per
  problem code (``/api/docs#problem-<code>`` is every problem's ``type``).

Only operations the running app serves are published, so the page never offers a URL that 404s;
``tests/api/test_openapi.py`` fails for a route under ``/api/v1`` that the table does not describe.
"""

from __future__ import annotations

import copy
import json
import re
import sys
from dataclasses import dataclass, field
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.common import resolve_schema_cls
from flask import Blueprint, Flask, current_app, jsonify, make_response, render_template, request
from markupsafe import Markup, escape
from marshmallow import Schema, fields, validate

from api import annotations, limits, notify_settings, reads, schemas, standing
from api.problems import PROBLEM_JSON, PROBLEMS
from domain.access import CONFIRM_PER_ADDRESS, CONFIRM_PER_SEAT, CONFIRM_TTL, CONFIRM_WINDOW, whole_hours

bp = Blueprint("openapi", __name__, template_folder="templates")

OPENAPI_VERSION = "3.1.0"
JSON = "application/json"
NDJSON = "application/x-ndjson"
SSE = "text/event-stream"
HTML = "text/html"

# Who may call an operation (x-warlog-auth); docs/api.md explains the model.
NONE, ANY, SEAT, ADMIN = "none", "any token", "seat", "admin"
WRITER = "seat, umpire or spectator"  # who may annotate
SEAT_OR_UMPIRE = "seat or umpire"  # who may read standing orders
OWN = "a token of this game"  # who may ask its role in the game
AUTH_TEXT = {
    NONE: "No token: the endpoint does not look at Authorization.",
    ANY: "Optional. A token of this game of any role (admin, seat, umpire) reads what that role "
         "may see; without one a public game is read as a spectator and a private game is 404.",
    SEAT: "A seat token of this game (Authorization: Bearer wls_…).",
    ADMIN: "The game's admin token (Authorization: Bearer wla_…), returned once at creation.",
    WRITER: "A seat token, the umpire's token (wlu_…) or, once the game has ended, a spectator token "
            "(wlv_…) the admin issued; not the admin token, nor no token.",
    SEAT_OR_UMPIRE: "A seat token of this game (its own seat's) or the umpire's token (wlu_…, every seat's); "
                    "not the admin token, nor a spectator.",
    OWN: "A token of this game, any role (wla_, wls_, wlu_, wlv_); not another game's, nor no token.",
}
_SECURITY = {NONE: [], ANY: [{}, {"bearerAuth": []}], SEAT: [{"bearerAuth": []}], ADMIN: [{"bearerAuth": []}],
             WRITER: [{"bearerAuth": []}], SEAT_OR_UMPIRE: [{"bearerAuth": []}],
             OWN: [{"bearerAuth": []}]}

# Problem codes shared by many rows of the table. store_unavailable (503) and internal_error (500)
# are added to every operation.
BODY = ("bad_request", "request_timeout", "unsupported_media_type", "payload_too_large", "invalid_request")
AUTH_READ = ("unauthorized", "game_not_found")
AUTH_WRITE = ("unauthorized", "forbidden", "game_not_found")
LOADS = ("damaged_log",)  # the operation loads the game's log, which may have been changed outside warlog
READ = (*AUTH_READ, *LOADS)
WRITE = (*AUTH_WRITE, *LOADS)
EVERYWHERE = ("store_unavailable", "internal_error")
# Codes not tied to one operation, and where they come from.
WHERE = {
    "not_found": "any URL the API does not have",
    "method_not_allowed": "any URL, with a method it does not take (the Allow header lists those it does)",
    "store_unavailable": "any operation that reads or writes the store, when a lock another writer holds "
                         "outlasts WARLOG_LOCK_TIMEOUT or the database cannot be reached (with Retry-After)",
    "internal_error": "any operation: a bug on the server, logged there",
}
# Codes of PROBLEMS that no HTTP operation answers with, and why. Every code is in a row of the
# table, in WHERE or here (a test checks), so a new code cannot go undocumented.
NOT_ANSWERED = {
    "unknown_seat": "not answered by the HTTP API: seats come from tokens and invite codes",
}


class Problem(Schema):
    """An RFC 9457 problem: every 4xx and 5xx answer of the API."""

    type = fields.String(required=True, metadata={"description": "/api/docs#problem-<code>"})
    title = fields.String(required=True, metadata={"description": "the code's fixed title"})
    status = fields.Integer(required=True)
    detail = fields.String(required=True, metadata={"description": "what went wrong in this request"})
    code = fields.String(required=True, validate=validate.OneOf(list(PROBLEMS)),
                         metadata={"description": "stable; switch on this, not on the text"})
    rule = fields.String(metadata={"description": "the rule an order breaks, e.g. FF 4"})
    field = fields.String(metadata={"description": "the order field that is malformed"})
    errors = fields.Dict(keys=fields.String(),
                         metadata={"description": "invalid_request: the messages per field (a list of "
                                                  "strings, or nested per key for a nested field)"})
    current_version = fields.Integer(metadata={"description": "version_conflict, stale_version: the "
                                                              "game's version now"})
    line = fields.Integer(metadata={"description": "integrity_failure: the first bad line of the log"})
    seat = fields.String(metadata={"description": "invite_used: the seat the invite code is for"})


# ------------------------------------------------------------------------ building blocks ----
def _path_param(name: str, description: str) -> dict:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string"},
            "description": description}


def query(name: str, type_: str, description: str, **schema: Any) -> dict:
    return {"name": name, "in": "query", "required": False, "schema": {"type": type_, **schema},
            "description": description}


_IDEMPOTENCY_KEY = {"name": "Idempotency-Key", "in": "header",
                    "schema": {"type": "string", "minLength": 1, "maxLength": 200}}

PARAMETERS: dict[str, dict] = {
    "GameId": {**_path_param("game_id", "the game's UUID; a malformed or unknown id is 404 game_not_found"),
               "schema": {"type": "string", "format": "uuid"}},
    "IdempotencyKey": {**_IDEMPOTENCY_KEY, "required": True,
                       "description": "The order id, chosen by the client (1-200 characters, no control "
                                      "characters). The same key with the same body returns the first result "
                                      "(200, Idempotent-Replayed: true) and records nothing; with another body "
                                      "it is 422 idempotency_conflict."},
    "CommandKey": {**_IDEMPOTENCY_KEY, "required": False,
                   "description": "Optional, chosen by the client (1-200 characters, no control characters): "
                                  "the same key with the same command returns the first result (200, "
                                  "Idempotent-Replayed: true) and records nothing, so a retry after a lost "
                                  "answer is safe; with another command it is 422 idempotency_conflict. "
                                  "Without it, each request is recorded."},
    "RotationKey": {**_IDEMPOTENCY_KEY, "required": True,
                    "description": "Chosen by the client (1-200 characters, no control characters), kept until "
                                   "the answer arrives: sent again with the replaced token (its answer lost), "
                                   "the same new token comes back (200, Idempotent-Replayed: true)."},
    "JoinKey": {**_IDEMPOTENCY_KEY, "required": False,
                "description": "Optional, chosen by the joiner (1-200 characters, no control characters) and "
                               "kept secret like the invite code: the same join sent again with it after its "
                               "answer was lost answers 200 with a fresh token for the seat and revokes the "
                               "first one, within 60 minutes of the join; with another body it is 422 "
                               "idempotency_conflict. An invite used without a key, or sent again without it, "
                               "with another, or later than that, is 409 invite_used."},
    "IfMatch": {
        "name": "If-Match", "in": "header", "required": False, "schema": {"type": "string"},
        "description": "The game version the client saw, as in the ETag (\"12\"; 1 to 15 digits). When the "
                       "game is at "
                       "another version the order is refused with 412 stale_version and nothing is recorded."},
    "WarlogSignature": {
        "name": "Warlog-Signature", "in": "header", "required": False,
        "schema": {"type": "string", "minLength": 86, "maxLength": 86},
        "description": "Required of a seat that registered a public key: its Ed25519 signature (unpadded "
                       "base64url of 64 bytes) of the canonical JSON of {game, order_id, order, head} for an "
                       "order; in a game of format 2 also of {game, kind: \"seal\", seat, round, commitment, head} "
                       "for a seal and {game, kind: \"reveal\", seat, round, orders, salt, head} for a reveal, "
                       "and of {game, kind, seat, <the command's fields>, head} for its other commands: kind "
                       "\"concede\" (no fields), \"take_back\" (reason), \"take_back_answer\" (accept), "
                       "\"standing_order\" (policy_id, decision_kind, policy as the rules record it), "
                       "\"standing_order_cancel\" (policy_id), \"client_seed\" (client_seed), \"umpire_answer\" "
                       "(accept), \"annotation\" or, for a private one, \"private_annotation\" (annotation_id, "
                       "about_seq, text), \"vacation\" (days), \"extension\" (days), \"claim_win\" (no fields), "
                       "each recorded as CommandSigned right after the command's line, and in every format "
                       "\"seat_token\" (request_id: the Idempotency-Key) for a new seat token and "
                       "\"notifications\" (settings: the PUT .../notifications body as sent), never recorded "
                       "(docs/dice.md, \"Signed orders and heads\"). Missing: 422 signature_required; wrong: "
                       "422 bad_signature. Ignored for a seat without a key."},
    "JoinSignature": {
        "name": "Warlog-Signature", "in": "header", "required": False,
        "schema": {"type": "string", "minLength": 86, "maxLength": 86},
        "description": "Required of a join sent again under its Idempotency-Key when the join registered a "
                       "public_key: that key's Ed25519 signature (unpadded base64url of 64 bytes) of the canonical "
                       "JSON of {game, kind: \"join_again\", request_id: the Idempotency-Key}, no head (docs/dice.md, "
                       "\"Signed orders and heads\"). Missing: 422 signature_required; wrong: 422 bad_signature; "
                       "the seat's token stays live. Ignored on a first join and for a join without a key."},
    "WarlogHead": {
        "name": "Warlog-Head", "in": "header", "required": False,
        "schema": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        "description": "With Warlog-Signature: the chain head the seat saw and signed over, the hash of any "
                       "line of this game's log (the current head or an older one); else 422 unknown_head."},
    "LastEventID": {
        "name": "Last-Event-ID", "in": "header", "required": False, "schema": {"type": "string"},
        "description": "The seq of the last event received; the stream resumes after it."},
}

HEADERS: dict[str, dict] = {
    "ETag": {"description": "the game's version after the request, quoted (\"12\"); send it back as If-Match",
             "schema": {"type": "string"}},
    "Location": {"description": "the new game's URL", "schema": {"type": "string"}},
    "IdempotentReplayed": {"description": "\"true\" when this is the first result of an order id seen "
                                          "before; nothing new was recorded",
                           "schema": {"type": "string", "enum": ["true"]}},
    "WWWAuthenticate": {"description": "Bearer realm=\"warlog\"", "schema": {"type": "string"}},
    "RetryAfter": {"description": "seconds to wait before trying again", "schema": {"type": "integer"}},
    "Link": {"description": "<URL of the next page>; rel=\"next\", while there is one", "schema": {"type": "string"}},
    "ContentDisposition": {"description": "attachment; filename=\"game-<game_id>.jsonl\"", "schema": {"type": "string"}},
    "WarlogServerKey": {"description": "the server's Ed25519 public key, which signs the game's heads (as GET "
                                       "/api/v1/server-key); `warlog export` writes it as the file's header "
                                       "line (docs/dice.md section 5)", "schema": {"type": "string"}},
    "WarlogDamaged": {"description": "only while the game's stored log fails verification at a line no operator "
                                     "has accepted: the first such line; the game takes no orders "
                                     "(docs/api.md, Damaged logs)", "schema": {"type": "integer"}},
}
_HEADER_NAMES = {"ETag": "ETag", "Location": "Location", "IdempotentReplayed": "Idempotent-Replayed",
                 "WWWAuthenticate": "WWW-Authenticate", "RetryAfter": "Retry-After", "Link": "Link",
                 "ContentDisposition": "Content-Disposition", "WarlogDamaged": "Warlog-Damaged",
                 "WarlogServerKey": "Warlog-Server-Key"}
_PROBLEM_HEADERS = {401: ("WWWAuthenticate",), 429: ("RetryAfter",), 503: ("RetryAfter",)}


@dataclass(frozen=True)
class Reply:
    """One success response: a description, a body schema (marshmallow class or JSON Schema) and
    the names of its response headers (keys of HEADERS)."""

    description: str
    schema: Any = None
    media: str = JSON
    headers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Op:
    summary: str
    auth: str
    replies: dict[int, Reply]
    description: str = ""
    tag: str = "games"
    params: tuple = ()  # names of PARAMETERS, parameter dicts, or a marshmallow schema for the query
    body: Any = None  # marshmallow schema class or JSON Schema; sent as application/json
    body_required: bool = True
    problems: tuple[str, ...] = ()


def _obj(description: str, **properties: Any) -> dict:
    """A JSON Schema object whose listed properties are known; the reads may add more."""
    out: dict[str, Any] = {"description": description} if description else {}
    return {"type": "object", **out,
            "properties": {k: {"type": v} if isinstance(v, str) else v for k, v in properties.items()}}


_GAME = ("GameId",)
_ORDER_KIND = {**_obj("a kind of order the ruleset takes", kind="string", rule="string", help="string",
                      fields={"type": "object", "additionalProperties": {"type": "string"}},
                      words={"type": "array", "items": {"type": "string"}}, head="string", when="object"),
               "required": ["kind", "rule", "help", "fields"]}
_RESULT = Reply("what was recorded: the events as export lines, the new version and chain head",
                schemas.CommandResult)

# ---- jobs
_JOB_ACCEPTED = _obj("a queued (or already made) job", job_id="string", status_url="string", result_url="string",
                     version="integer", audience={"type": "string", "enum": ["umpire", "public"]})
FORMAT_QUERY = query("format", "string", "html (the offline page, default) or json (the frames)", enum=["html", "json"])
STATS_QUERY = query("version", "integer", "the version made at (default: the latest made)", minimum=1)
CHART_QUERY = query("chart", "string", "an SVG chart instead of the JSON", enum=["faces", "vp"])
RULESET_QUERY = {**query("ruleset", "string", "the ruleset, e.g. freeform"), "required": True}
SANDBOX_QUERY = query("sandbox", "boolean", "true: count sandboxes too (they are left out by default)")

# ---- rules coverage (domain/rulesets/toolkit/coverage.py)
_RULE_COUNTS = _obj("{status: how many}", **{k: "integer" for k in ("adjudicated", "declared", "not applicable",
                                                                     "pending")})
_RULE_ITEM = _obj("", status={"type": "string", "enum": ["adjudicated", "declared", "not applicable", "pending"]},
                  tests={"type": "array", "items": {"type": "string"}}, why="string", what="string")

# ---- the event stream: its schema describes one event (OpenAPI 3.1 reads a text/event-stream
# schema per event, as 3.2's itemSchema does); ``data`` is the export line as JSON text.
SSE_EVENT = _obj("one event; the stream's `retry:` line and `: keep-alive` comments are not events",
                 id={"type": "string", "description": "the event's seq"},
                 event={"type": "string", "description": "the event's type, e.g. OrderAccepted"},
                 data={"type": "string", "contentMediaType": JSON,
                       "contentSchema": {"$ref": "#/components/schemas/Line"},
                       "description": "the export line with its `text`, as the caller may see it (JSON)"})
SSE_EVENT["required"] = ["id", "event", "data"]

# ---------------------------------------------------------------------------- the table ----
# A keyed seat's other commands (format 2; docs/dice.md, "Signed orders and heads").
_SIGNED = ("signature_required", "bad_signature", "unknown_head", "signature_reused")


def _signs(kind: str) -> str:
    return (f" In a game of format 2 a seat that registered a public key signs it (Warlog-Signature over "
            f"Warlog-Head, kind \"{kind}\"), recorded (CommandSigned) right after its line.")


OPERATIONS: dict[tuple[str, str], Op] = {
    # ---- service
    ("get", "/healthz"): Op(
        "Health check", NONE, tag="service",
        description="A round trip to the store: the head of its notification log.",
        replies={200: Reply("the store answers", _obj(
            "", status={"type": "string", "enum": ["ok"]},
            store={"type": "string", "enum": ["sqlite", "postgres"]},
            events={"type": "integer", "description": "events stored, all games"}))}),
    ("get", "/api/v1/server-key"): Op(
        "The server's public key", NONE, tag="service",
        description="The Ed25519 key that signs every `signed_head` this server hands back: "
                    "`{game, seq, hash, signature}`, the signature over the canonical JSON of {game, seq, hash} "
                    "(docs/dice.md). Keep it with the heads: `warlog verify FILE --head HEAD` checks a file "
                    "against one.",
        replies={200: Reply("the key", schemas.ServerKey)}),
    ("get", "/api/v1/rulesets"): Op(
        "List the rulesets", NONE, tag="service",
        description="The games this server can referee; `name` is what `POST /api/v1/games` takes, "
                    "`vp_note` what its VP numbers mean where the sides' names do not say it (as in "
                    "GET /api/v1/rulesets/{name}; the lobby's VP column shows it), else null.",
        replies={200: Reply("every ruleset", {"type": "array", "items": _obj(
            "", name="string", title="string", vp_note={"type": ["string", "null"]})})}),
    ("get", "/api/v1/rulesets/{name}"): Op(
        "A ruleset and its board", NONE, tag="service",
        params=(_path_param("name", "the ruleset's name, as in GET /api/v1/rulesets"),),
        description="What a page needs to draw the game: `board` is the ruleset's drawing data (maps with their "
                    "size, areas with polygon and label position, units with name, abbreviation, side and steps; "
                    "docs/pages.md), or null for a game without a map (freeform). `order_kinds` lists the kinds "
                    "of order the game takes: `kind`, `rule`, a one-line `help` and `fields` ({name: one line}); "
                    "optionally `words` (the fields `warlog order` takes as words after the kind), `head` (a "
                    "legal order's first line, formatted with its template) and `when` (the template values "
                    "the entry is for). `positions` are the named positions a game can start from (`position` "
                    "in POST /api/v1/games). `take_back_rule` is the rule that lets a seat ask to take back its "
                    "last order (FF 6, FS 5.1), null in a game that allows none. `vp_note` says what the VP "
                    "numbers mean where the track's name does not (Falklands Showdown's one signed track), "
                    "else null. `unit_of_play` is the game's word for what one command records, the replay "
                    "viewer's step between event and phase: `operation` (FS 7.1), `action` (STF), else `order`. "
                    "An unknown name is 404.",
        replies={200: Reply("the ruleset", _obj("", name="string", title="string",
                                               take_back_rule={"type": ["string", "null"],
                                                               "description": "null: no take-backs in this game"},
                                               vp_note={"type": ["string", "null"],
                                                        "description": "what the VP numbers mean; null: "
                                                                       "the sides' names say it"},
                                               unit_of_play={"type": "string",
                                                             "description": "what one command records, in the "
                                                                            "game's word (operation, action, order)"},
                                               board={"type": ["object", "null"],
                                                      "description": "maps, areas, borders, units; null: no map"},
                                               order_kinds={"type": "array", "items": _ORDER_KIND},
                                               positions={"type": "array", "items": _obj(
                                                   "a named position", name="string", title="string",
                                                   note="string")}))},
        problems=("not_found",)),
    ("get", "/api/v1/rulesets/{name}/rules"): Op(
        "A ruleset's rules coverage", NONE, tag="service",
        params=(_path_param("name", "the ruleset's name, as in GET /api/v1/rulesets"),),
        description="Every rule number of the ruleset's text (and every data table) with its status: `adjudicated` "
                    "(with the tests that check it), `declared` (a seat supplies the value; `why`), `not applicable` "
                    "(`why`) or `pending` (being built), and the counts per status; the same as `warlog rules NAME "
                    "--json` (docs/rulesets.md). An unknown name is 404.",
        replies={200: Reply("the coverage manifest and its counts", _obj(
            "", name="string", title="string", text="string", rule_numbers="string",
            counts=_obj("per part, {status: how many}", rules=_RULE_COUNTS, tables=_RULE_COUNTS),
            rules={"type": "object", "description": "{rule number: {status, tests?, why?, what?}}",
                   "additionalProperties": _RULE_ITEM},
            tables={"type": "object", "description": "{data file: {status, tests?, why?, what?}}",
                    "additionalProperties": _RULE_ITEM}))},
        problems=("not_found",)),
    # ---- games
    ("post", "/api/v1/games"): Op(
        "Create a game", NONE, body=schemas.CreateGame,
        description="Anyone may create a game, up to WARLOG_GAMES_PER_ADDRESS (20) from one address within "
                    "WARLOG_GAMES_WINDOW_SECONDS (3600): beyond, 429 too_many_games with Retry-After. The answer "
                    "holds the admin token and one invite code per seat; they are shown once and stored only as "
                    "hashes. Hand each invite code to its player. With `position` the game starts from that named "
                    "position of the ruleset (GET /api/v1/rulesets/{name}); an unknown one is 422 invalid_setup "
                    "naming the known ones. With `time_control` the seats to move have days per move or turn, "
                    "are reminded before a deadline, may take vacation, and a deadline passed lets another seat "
                    "claim the win or passes for the late seat (docs/api.md, \"Time control\"); recorded in "
                    "the log as TimeControlSet right after the creation, read by all in the game's `clock`.",
        replies={201: Reply("the game was created", schemas.Created, headers=("Location",))},
        problems=(*BODY, "unknown_ruleset", "invalid_setup", "too_many_games")),
    ("post", "/api/v1/games/{game_id}/sandbox"): Op(
        "Fork a sandbox", ANY, params=_GAME, body=schemas.Sandbox,
        description="A new game from this game's state right after event `at`: \"what if I had attacked "
                    "instead?\" Anyone who may read the game may fork it, as what the token may see: where the "
                    "state holds information hidden from the caller, only an umpire token may fork (403 "
                    "fork_hidden). `at` must be an event between orders, before the game ended (else 422 "
                    "invalid_fork, saying why and where it can start). The sandbox has its own seats, invites, "
                    "admin token and dice (new seeds), and SandboxForked in its log names the source game, the "
                    "event and that event's hash. It counts against WARLOG_GAMES_PER_ADDRESS like a new game, and "
                    "every fork asked for, whatever its answer, against the whole-log reads' rate limit "
                    "(429 too_many_reads); a sandbox is left out of GET /api/v1/games and of statistics across "
                    "games unless asked.",
        replies={201: Reply("the sandbox was created", schemas.Created, headers=("Location",))},
        problems=(*READ, *BODY, "fork_hidden", "invalid_fork", "invalid_setup", "too_many_games")),
    ("get", "/api/v1/games"): Op(
        "List games", ANY, params=(schemas.GameFilters,),
        description="Public games, plus the game of the caller's token, most recent activity first; "
                    "sandboxes only with `sandbox=true`. In pages of `limit` games (100 unless given, at most "
                    "500): `next_after` (and the Link header, rel=next) is the cursor to pass as `after` for "
                    "the next page, null on the last; a cursor this list did not give is 422. A game whose "
                    "activity moves it up between two pages is not listed again. An unknown query parameter "
                    "is 422 invalid_request.",
        replies={200: Reply("a page of the games", schemas.GameList, headers=("Link",))},
        problems=("unauthorized", "invalid_request", *LOADS)),
    ("get", "/api/v1/games/{game_id}"): Op(
        "A game's summary", ANY, params=_GAME,
        description="Seats, whose move, turn, phase, VP, version and chain head, as the caller may see them.",
        replies={200: Reply("the summary", schemas.Summary, headers=("ETag", "WarlogDamaged"))},
        problems=READ),
    ("get", "/api/v1/games/{game_id}/me"): Op(
        "The token's role in this game", OWN, params=_GAME,
        description="What the bearer token is in this game: `admin`, `seat` (with its `seat`), `umpire` or "
                    "`spectator` (with its `name`). A public game reads with any game's token, as a "
                    "spectator, so a client given a token checks it here before keeping it: another game's "
                    "token is 403 forbidden, a revoked or unknown one 401, no token 401; on a private game "
                    "another game's token and no token are 404, as on every read. Nothing is recorded.",
        replies={200: Reply("the token's role", schemas.Me)},
        problems=AUTH_WRITE),
    # ---- seats
    ("post", "/api/v1/games/{game_id}/join"): Op(
        "Join a seat with an invite code", NONE, tag="seats", params=(*_GAME, "JoinKey", "JoinSignature"),
        body=schemas.Join,
        description="The invite code is the credential: it names the seat and works once. The answer holds "
                    "the seat's token, shown once, and the umpire appointed, if any. The game starts (dice epoch 0 opens) when the last seat joins. "
                    "An unknown invite code is 404, like an unknown game. With `public_key` (Ed25519, unpadded "
                    "base64url of 32 bytes) every later order of the seat must be signed (POST .../orders); "
                    "a malformed key, or one another seat of the game registered, is 422 invalid_order and the "
                    "invite stays unused. Sent with an "
                    "Idempotency-Key, the same join sent again with that key (its answer lost) answers 200 with "
                    "a fresh token for the seat and revokes the token of the first answer; within 60 minutes of the "
                    "join, at most 10 times, and not once the seat has replaced its token (else 409 invite_used); "
                    "a join that registered a `public_key` is sent again signed by it (Warlog-Signature). "
                    "An `email` gets one "
                    "confirmation mail and no turn mail until its link is followed (`confirmation_mail`; see "
                    "PUT .../notifications).",
        replies={201: Reply("the seat is taken", schemas.Joined),
                 200: Reply("this join was made before under this Idempotency-Key, with the same body: its "
                            "first answer with a fresh seat token (the first one is revoked), nothing new "
                            "recorded", schemas.Joined, headers=("IdempotentReplayed",))},
        problems=(*BODY, "game_not_found", "invite_used", "idempotency_key_required", "idempotency_conflict",
                  "invalid_order", "rule_violation", "signature_required", "bad_signature",
                  "version_conflict", *LOADS)),
    ("post", "/api/v1/games/{game_id}/seat-token"): Op(
        "Replace the seat's token", SEAT, tag="seats", params=(*_GAME, "RotationKey", "WarlogSignature",
                                                              "WarlogHead"),
        description="For a seat token that leaked: a new token for the seat, and the token sent revoked (401 from "
                    "now on, in every server process), in one transaction. Recorded beside the log (the seat and "
                    "when; never a token), not in it. No body. A seat that registered a public key signs the "
                    "request in every format (Warlog-Signature over Warlog-Head, kind \"seat_token\", field "
                    "request_id: the Idempotency-Key), so a thief holding the token alone cannot take the seat. "
                    "Sent again (its answer lost) with the replaced token under the same Idempotency-Key, within "
                    "60 minutes and while the new token is live: the same new token, 200; never a second one. "
                    "A key that replaced one of the seat's tokens replaces no other (422 idempotency_conflict): "
                    "a captured signed request replaces nothing but its own token. "
                    "At most 10 a seat within 24 hours (each new token has a write limit of its own): beyond, "
                    "429 too_many_rotations with Retry-After.",
        replies={201: Reply("the seat's new token, shown once", schemas.SeatToken),
                 200: Reply("this token was replaced under this Idempotency-Key: the same new token again",
                            schemas.SeatToken, headers=("IdempotentReplayed",))},
        problems=(*WRITE, "idempotency_key_required", "signature_required", "bad_signature", "unknown_head",
                  "bad_request", "too_many_rotations", "idempotency_conflict")),
    ("post", "/api/v1/games/{game_id}/umpire"): Op(
        "Propose an umpire", ADMIN, tag="umpire", params=_GAME, body=schemas.UmpireProposal,
        description="An umpire reads everything, hidden information included, so it is a role the seats agree "
                    "to: the proposal is an event of the log (UmpireProposed) every seat reads, and the umpire is "
                    "appointed (UmpireAppointed) only once every seat has accepted. One proposal at a time, and "
                    "none while an umpire is appointed (rule_violation, rule `umpire`). An umpire may also be "
                    "named at creation (`umpire` in POST /api/v1/games).",
        replies={201: Reply("the proposal is waiting for the seats", schemas.CommandResult)},
        problems=(*WRITE, *BODY, "invalid_order", "rule_violation", "version_conflict")),
    ("post", "/api/v1/games/{game_id}/umpire/answer"): Op(
        "Accept or decline the proposed umpire", SEAT, tag="umpire", params=(*_GAME, "WarlogSignature", "WarlogHead"),
        body=schemas.UmpireAnswer,
        description="Each seat, once joined, answers for itself. The last acceptance appoints the umpire in the "
                    "same result (UmpireAppointed); a decline ends the proposal and nobody is appointed. With no "
                    "proposal waiting, `{\"accept\": false}` withdraws the seat's agreement to the umpire "
                    "appointed (named at creation too): the role ends (UmpireRevoked) and every umpire token "
                    "with it." + _signs("umpire_answer"),
        replies={200: _RESULT},
        problems=(*WRITE, *BODY, "rule_violation", "version_conflict", *_SIGNED)),
    ("delete", "/api/v1/games/{game_id}/umpire"): Op(
        "End the umpire's role", ADMIN, tag="umpire", params=_GAME,
        description="Records UmpireRevoked in the log and revokes every umpire token of the game at once "
                    "(they answer 401 from then on). No request body.",
        replies={200: _RESULT},
        problems=(*WRITE, "rule_violation", "version_conflict")),
    ("post", "/api/v1/games/{game_id}/umpire-tokens"): Op(
        "Issue an umpire token", ADMIN, tag="umpire", params=_GAME,
        description="Only while the game's log appoints an umpire (else rule_violation, rule `umpire`): the "
                    "admin receives the token and hands it to the umpire the seats agreed to. It reads "
                    "everything of the game, hidden information included, and changes nothing. At most "
                    "WARLOG_MAX_UMPIRE_TOKENS (default 3) live at once: 409 umpire_token_limit beyond; at "
                    "most 200 umpire and spectator tokens issued in all, revoked ones counted: 409 "
                    "tokens_issued_limit beyond. No request body.",
        replies={201: Reply("a new umpire token, shown once", schemas.UmpireToken)},
        problems=(*WRITE, "rule_violation", "umpire_token_limit", "tokens_issued_limit", "version_conflict")),
    ("get", "/api/v1/games/{game_id}/umpire-tokens"): Op(
        "List the umpire tokens", ADMIN, tag="umpire", params=_GAME,
        description="Every umpire token ever issued for the game, live and revoked, with when it was made and "
                    "revoked (never the token itself), the umpire appointed now and a waiting proposal.",
        replies={200: Reply("the umpire tokens", schemas.UmpireTokens)},
        problems=WRITE),
    ("delete", "/api/v1/games/{game_id}/umpire-tokens/{token_id}"): Op(
        "Revoke an umpire token", ADMIN, tag="umpire",
        params=(*_GAME, _path_param("token_id", "the token's id, as in the listing")),
        description="The token answers 401 from now on, in every server process; its row is kept, marked "
                    "revoked. The umpire's role goes on (end it with DELETE .../umpire). Revoking a revoked "
                    "token changes nothing; an unknown id is 404.",
        replies={200: Reply("the token, revoked", schemas.UmpireTokenEntry)},
        problems=(*AUTH_WRITE, "not_found")),
    ("put", "/api/v1/games/{game_id}/client-seed"): Op(
        "Change the seat's client seed", SEAT, tag="seats", params=(*_GAME, "WarlogSignature", "WarlogHead"),
        body=schemas.ClientSeed,
        description="The new seed enters the dice of the next epoch opened, never the open one (docs/dice.md)." +
                    _signs("client_seed"),
        replies={200: _RESULT},
        problems=(*WRITE, *BODY, "version_conflict", *_SIGNED)),
    ("get", "/api/v1/games/{game_id}/notifications"): Op(
        "The seat's notification settings", SEAT, tag="seats", params=_GAME,
        description="For the caller's own seat only: its address, opt-out, the reasons and channels it chose, "
                    "its digest, its webhook's URL and format (never the secret).",
        replies={200: Reply("the seat's settings", notify_settings.NotificationSettingsOut)},
        problems=AUTH_WRITE),
    ("put", "/api/v1/games/{game_id}/notifications"): Op(
        "The seat's notifications: address, opt-out, reasons, channels, digest, its webhook (signed by a keyed seat)",
        SEAT, tag="seats",
        params=(*_GAME, "WarlogSignature", "WarlogHead"), body=notify_settings.NotificationSettings,
        description="For the caller's own seat. A mail goes out when the seat's turn begins (or a decision "
                    "waits for it, a take-back asks it, the game ends): what the others did, as this seat may "
                    "see it, the dice, the chain head, a link to the game and a link that opens the replay at "
                    "the seat's last order (`/games/{id}/replay?from=SEQ`). A field left out keeps what was set "
                    "before: without `email` the address given at join; `notify: false` stops the mails; "
                    "`events` picks the reasons (default all), `channels` mail, the seat's own webhook or both "
                    "(default mail), `digest: true` one mail a day instead of one per event. A new "
                    "`webhook_url` without `webhook_secret` gets a generated secret, returned once; its host is "
                    "checked as the game webhook's is (422 naming why). `webhook_format` is the body the seat's "
                    "webhook gets, one of the game webhook's formats: `warlog` (default, its JSON), `discord` "
                    "`{\"content\": ...}` or `slack` `{\"text\": ...}`, with what this seat may see; another "
                    "value is 422 naming the field and the formats. `channels` holding `webhook` without a "
                    "URL, or `notify: true` without any address, is 422. None of it is shown to anyone else "
                    "or enters the log. An address gets no turn mail until its owner confirms it: a new "
                    "`email` (or one not confirmed, given again) is sent one confirmation mail, whose link "
                    f"(single use, valid {whole_hours(CONFIRM_TTL)} hours) opens `/confirm-email`; "
                    "`email_confirmed` says whether it was followed. At most "
                    f"{CONFIRM_PER_ADDRESS} confirmation mails go to one address and {CONFIRM_PER_SEAT} to one "
                    f"seat's addresses in {whole_hours(CONFIRM_WINDOW)} hours; beyond, a new address is 429 "
                    "`too_many_confirmations` with `Retry-After` and nothing is changed (the seat's own address "
                    "given again is kept, with no mail: `confirmation_mail` false). A seat that registered a "
                    "public key signs the body in every format (Warlog-Signature over Warlog-Head, kind "
                    "\"notifications\", field settings: the body as sent), so its token alone cannot silence "
                    "it; unsigned or wrongly signed, 422 and nothing is changed.",
        replies={200: Reply("the seat's settings now", notify_settings.NotificationSettingsOut)},
        problems=(*AUTH_WRITE, *BODY, "too_many_confirmations", *_SIGNED[:3])),
    ("post", "/api/v1/email-confirmations"): Op(
        "Confirm an address for turn mails", NONE, tag="seats", body=notify_settings.EmailConfirmation,
        description="The code of a confirmation mail's link (`wlc_...`) is the proof that whoever reads the "
                    "address asked for the mails; the page `/confirm-email` sends it here with one press of a "
                    f"button. It works once, within {whole_hours(CONFIRM_TTL)} hours of the mail; then the "
                    "seat's turn mails go to the address it was sent to.",
        replies={200: Reply("the address is confirmed for the seat", notify_settings.EmailConfirmed)},
        problems=(*BODY, "not_found", "confirmation_used", "confirmation_expired")),
    ("put", "/api/v1/games/{game_id}/webhook"): Op(
        "Set or remove the game's webhook", ADMIN, tag="seats", params=_GAME, body=notify_settings.Webhook,
        description="When a seat's turn begins the server POSTs to the URL, in the webhook's `format`: "
                    "`warlog` (default) a JSON summary, `discord` `{\"content\": ...}`, `slack` "
                    "`{\"text\": ...}`, a message naming the game, the seats to move and the game's page "
                    "(public information only). Deliveries are signed as the Standard Webhooks spec says: "
                    "`webhook-id` (the same on every retry), `webhook-timestamp`, `webhook-signature: "
                    "v1,<base64 HMAC-SHA256 of id.timestamp.body>`; receivers verify with the "
                    "`standardwebhooks` library, `Webhook(secret).verify(body, headers)` (docs/api.md). "
                    "`secret`: `whsec_` and the base64 of 24 to 64 bytes; without it one is generated and "
                    "returned once. `{\"url\": null}` removes the webhook. A URL whose host is written as "
                    "a loopback, private, link-local, multicast or reserved address, or is a localhost name, "
                    "is 422 invalid_request naming why, unless the operator's WARLOG_WEBHOOK_ALLOW lists it; "
                    "a host name is not resolved in the request: each delivery resolves it and refuses an "
                    "internal address (a failed delivery, its reason recorded). Redirects are not followed. Failed deliveries "
                    "are retried with backoff, then kept as failed jobs.",
        replies={200: Reply("the webhook now", notify_settings.WebhookOut)},
        problems=(*AUTH_WRITE, *BODY)),
    # ---- orders
    ("post", "/api/v1/games/{game_id}/orders"): Op(
        "Submit an order", SEAT, tag="orders",
        params=(*_GAME, "IdempotencyKey", "IfMatch", "WarlogSignature", "WarlogHead"), body=schemas.Order,
        description="The server checks the order against the rules, rolls any dice and records the outcome. "
                    "Checked in this order: token, Idempotency-Key, If-Match, body, then the rules. A key seen "
                    "before returns the first result whatever If-Match says. Losing a race to another writer "
                    "is 409 version_conflict; nothing was recorded, reload and decide again. An order is at "
                    "most 16 KiB of JSON (422 invalid_order); each ruleset bounds its own fields (freeform: "
                    "a note's text 4,000 characters, a reason 1,000, a purpose 200, a rule, level or unit "
                    "name 100; a VP delta and total within ±1,000,000), refusing more as invalid_order "
                    "naming the rule. A seat that registered a public key signs each order (Warlog-Signature "
                    "over Warlog-Head), checked before the rules; the signature is recorded (OrderSigned) "
                    "right after the OrderAccepted. `signed_head` is the chain head signed by the server.",
        replies={201: Reply("the order was recorded", schemas.CommandResult, headers=("ETag",)),
                 200: Reply("this Idempotency-Key was recorded before with the same order: its first "
                            "result, nothing new recorded", schemas.CommandResult,
                            headers=("ETag", "IdempotentReplayed"))},
        problems=(*WRITE, *BODY, "idempotency_key_required", "invalid_order", "rule_violation",
                  "not_your_move", "idempotency_conflict", "version_conflict", "stale_version",
                  "integrity_failure", "signature_required", "bad_signature", "unknown_head")),
    ("post", "/api/v1/games/{game_id}/sealed"): Op(
        "Seal the seat's orders for the open round (commit)", SEAT, tag="orders",
        params=(*_GAME, "WarlogSignature", "WarlogHead"), body=schemas.SealedCommit,
        description="In a sealed-orders round (freeform: the option `sealed_orders`, FF 8) each seat commits "
                    "to its orders by sending only their commitment, SHA-256 of the canonical JSON of "
                    "`{game, seat, round, orders, salt}` (docs/dice.md, Sealed orders); the other seats see "
                    "that it committed. The same commitment again returns the first result (200, "
                    "Idempotent-Replayed); a different one is refused (rule_violation): a commitment is never "
                    "changed. Refused when no round is open, or the seat is not in it. In a game of format 2 "
                    "a seat that registered a public key signs the seal (Warlog-Signature over Warlog-Head), "
                    "recorded (SealedOrdersSigned) right after the OrderSealed.",
        replies={201: Reply("the commitment was recorded", schemas.CommandResult, headers=("ETag",)),
                 200: Reply("this commitment was recorded before: its line, nothing new recorded",
                            schemas.CommandResult, headers=("ETag", "IdempotentReplayed"))},
        problems=(*WRITE, *BODY, "invalid_order", "rule_violation", "not_your_move", "version_conflict",
                  "signature_required", "bad_signature", "unknown_head")),
    ("post", "/api/v1/games/{game_id}/sealed/reveal"): Op(
        "Reveal the seat's sealed orders", SEAT, tag="orders", params=(*_GAME, "WarlogSignature", "WarlogHead"),
        body=schemas.SealedReveal,
        description="Once every seat of the round has committed, each reveals its orders and salt; the server "
                    "checks them against the commitment (422 commitment_mismatch, nothing recorded). The last "
                    "reveal of the round carries every revealed order out, in the order the rules say "
                    "(freeform: the order of the sides), each as an ordinary order with its dice, or as "
                    "SealedOrderRefused naming its rule; then the next round opens. The same reveal again "
                    "returns its first line (200, Idempotent-Replayed). In a game of format 2 a seat that "
                    "registered a public key signs the reveal (Warlog-Signature over Warlog-Head), recorded "
                    "(SealedOrdersSigned) right after the OrderRevealed.",
        replies={201: Reply("the reveal (and, when it was the last, the round's orders carried out) was recorded",
                            schemas.CommandResult, headers=("ETag",)),
                 200: Reply("this reveal was recorded before: its line, nothing new recorded",
                            schemas.CommandResult, headers=("ETag", "IdempotentReplayed"))},
        problems=(*WRITE, *BODY, "invalid_order", "rule_violation", "not_your_move", "commitment_mismatch",
                  "version_conflict", "integrity_failure", "signature_required", "bad_signature", "unknown_head")),
    ("get", "/api/v1/games/{game_id}/legal-orders"): Op(
        "What this seat may order now", SEAT, tag="orders", params=_GAME,
        description="Order templates from the ruleset, enough for a client to offer only legal choices; "
                    "`take_back`: whether the seat may ask now to take back its last order (its own order is "
                    "the last one given, no request waits, the game allows take-backs and has not ended).",
        replies={200: Reply("the templates", schemas.LegalOrders, headers=("ETag",))},
        problems=WRITE),
    ("post", "/api/v1/games/{game_id}/take-backs"): Op(
        "Ask to take back the seat's last order", SEAT, tag="orders", params=(*_GAME, "WarlogSignature", "WarlogHead"),
        body=schemas.TakeBackRequest,
        description="Only the seat's own last order, before anything else was ordered, in a game whose "
                    "rules allow take-backs (freeform: FF 6). The body is JSON even when empty: `{}`." +
                    _signs("take_back"),
        replies={201: Reply("the request is waiting for the opponent", schemas.CommandResult)},
        problems=(*WRITE, *BODY, "rule_violation", "version_conflict", *_SIGNED)),
    ("post", "/api/v1/games/{game_id}/take-backs/answer"): Op(
        "Accept or decline the waiting take-back", SEAT, tag="orders", params=(*_GAME, "WarlogSignature", "WarlogHead"),
        body=schemas.TakeBackAnswer,
        description="Only the opponent answers. An accepted take-back is a new event; the taken-back "
                    "events and their dice stay in the log." + _signs("take_back_answer"),
        replies={200: _RESULT},
        problems=(*WRITE, *BODY, "rule_violation", "version_conflict", *_SIGNED)),
    ("post", "/api/v1/games/{game_id}/concede"): Op(
        "Concede the game", SEAT, tag="orders", params=(*_GAME, "WarlogSignature", "WarlogHead"),
        description="Ends the game (the ruleset names the winner) and reveals the open dice epoch. No body." +
                    _signs("concede"),
        replies={200: _RESULT},
        problems=(*WRITE, "rule_violation", "version_conflict", "integrity_failure", *_SIGNED, "bad_request")),
    ("post", "/api/v1/games/{game_id}/vacation"): Op(
        "Announce a vacation", SEAT, tag="orders", params=(*_GAME, "CommandKey", "WarlogSignature", "WarlogHead"),
        body=schemas.Vacation,
        description="In a game with a time control, the seat announces whole days of vacation, from now (or "
                    "from the end of the vacation it is on), within its allowance (`vacation_days`): recorded "
                    "as VacationTaken, read by every seat. A deadline of the seat running moves on by as many "
                    "days (DeadlineExtended); one set during the vacation runs from its end. Refused past the "
                    "allowance, after the seat's deadline has passed, or without a time control (422 "
                    "rule_violation, rule \"time\")." + _signs("vacation"),
        replies={201: Reply("the vacation was recorded", schemas.CommandResult, headers=("ETag",)),
                 200: Reply("this Idempotency-Key was recorded before with the same vacation: its first "
                            "result, nothing new recorded", schemas.CommandResult,
                            headers=("ETag", "IdempotentReplayed"))},
        problems=(*WRITE, *BODY, "idempotency_key_required", "invalid_order", "rule_violation",
                  "idempotency_conflict", "version_conflict", *_SIGNED)),
    ("post", "/api/v1/games/{game_id}/extension"): Op(
        "Give the seats to move more time", SEAT, tag="orders", params=(*_GAME, "CommandKey", "WarlogSignature", "WarlogHead"),
        body=schemas.Extension,
        description="In a game with a time control, a seat that is not to move gives the seats to move whole "
                    "days more: ExtensionGranted, then DeadlineExtended (from their deadline, or from now once "
                    "it has passed, which lifts the flag: no claim then). Refused from a seat to move, or "
                    "with no deadline running (422 rule_violation, rule \"time\")." + _signs("extension"),
        replies={201: Reply("the extension was recorded", schemas.CommandResult, headers=("ETag",)),
                 200: Reply("this Idempotency-Key was recorded before with the same extension: its first "
                            "result, nothing new recorded", schemas.CommandResult,
                            headers=("ETag", "IdempotentReplayed"))},
        problems=(*WRITE, *BODY, "idempotency_key_required", "invalid_order", "rule_violation",
                  "idempotency_conflict", "version_conflict", *_SIGNED)),
    ("post", "/api/v1/games/{game_id}/claim-win"): Op(
        "Claim the win on time", SEAT, tag="orders", params=(*_GAME, "WarlogSignature", "WarlogHead"),
        description="Once the seats to move let their deadline pass (by the server's clock), another seat "
                    "claims the win: TimedOut (unless the sweep recorded it already), WinClaimed and GameEnded "
                    "(level \"timeout\"). Refused before the deadline, by a seat to move, once the late seat "
                    "has moved, and where on_timeout is \"pass\" and the server can give the late seat's pass "
                    "(422 rule_violation, rule \"time\"). No body." + _signs("claim_win"),
        replies={200: _RESULT},
        problems=(*WRITE, "rule_violation", "version_conflict", "integrity_failure", *_SIGNED, "bad_request")),
    ("put", "/api/v1/games/{game_id}/standing-orders/{policy_id}"): Op(
        "Leave a standing order", SEAT, tag="orders",
        params=(*_GAME, _path_param("policy_id", "the standing order's name, 1-80 printable characters"),
                "WarlogSignature", "WarlogHead"),
        body=standing.StandingOrderBody,
        description="A policy that answers the seat's pending decisions of one kind while it is not to move "
                    "(an interrupt such as opportunity fire), allowed whoever is to move (docs/rulesets.md, "
                    "Standing orders). The ruleset checks it: a kind it takes no standing orders for, or a "
                    "policy not in its form, is 422 naming the rule. One standing order per decision kind; "
                    "the same name again replaces it, the same policy again records nothing. When an order "
                    "leaves a decision the policy covers, the policy answers within that order "
                    "(`StandingOrderUsed`, then the outcome) or, where it says so, the seat is asked. Other "
                    "seats and spectators see that a standing order was set, not what it says." +
                    _signs("standing_order") +
                    " It signs the policy as the rules record it (a refusal names that form); the other seats "
                    "do not see the signature.",
        replies={200: Reply("what was recorded (nothing when the policy was set already)", schemas.CommandResult,
                            headers=("ETag",))},
        problems=(*WRITE, *BODY, "invalid_order", "rule_violation", "version_conflict", *_SIGNED)),
    ("delete", "/api/v1/games/{game_id}/standing-orders/{policy_id}"): Op(
        "Cancel a standing order", SEAT, tag="orders",
        params=(*_GAME, _path_param("policy_id", "the standing order's name"), "WarlogSignature", "WarlogHead"),
        description="From now on the seat is asked again. A name the seat holds no standing order under is "
                    "422 rule_violation. No request body." + _signs("standing_order_cancel"),
        replies={200: Reply("what was recorded", schemas.CommandResult, headers=("ETag",))},
        problems=(*WRITE, "rule_violation", "version_conflict", *_SIGNED, "bad_request")),
    ("get", "/api/v1/games/{game_id}/standing-orders"): Op(
        "The seat's standing orders", SEAT_OR_UMPIRE, tag="orders", params=_GAME,
        description="A seat token reads its own seat's standing orders, an umpire token every seat's; any "
                    "other caller is 403. `accepts` says which decision kinds the ruleset takes standing "
                    "orders for, with the rule and the policy's form.",
        replies={200: Reply("the standing orders", standing.StandingOrders, headers=("ETag",))},
        problems=(*AUTH_WRITE, *LOADS)),
    # ---- annotations (api/annotations.py)
    ("post", "/api/v1/games/{game_id}/annotations"): Op(
        "Annotate an event of the log", WRITER, tag="orders",
        params=(*_GAME, "IdempotencyKey", "WarlogSignature", "WarlogHead"), body=annotations.AnnotationBody,
        description="A comment on event `about_seq`, recorded as AnnotationAdded, during the game or after it "
                    "(an after-action report): by a seat, the umpire, or once the game has ended a spectator "
                    "token's holder. Not an order: it rolls nothing and changes nobody's move. `private`: its "
                    "text is read by its seat and the umpire only (an umpire's by the umpire only); a "
                    "spectator's are public (422 invalid_order). The Idempotency-Key is the annotation's id: "
                    "the same key with the same annotation returns the first result (200), with another "
                    "422 idempotency_conflict. An event that does not exist, or that is an annotation, is "
                    "422 invalid_order; a spectator before the end 422 rule_violation. The history shows "
                    "each annotation beside its event." + _signs("annotation") +
                    " A private one's kind is \"private_annotation\", and its signature is hidden with its text.",
        replies={201: Reply("the annotation was recorded", schemas.CommandResult, headers=("ETag",)),
                 200: Reply("this Idempotency-Key was recorded before with the same annotation: its first "
                            "result, nothing new recorded", schemas.CommandResult,
                            headers=("ETag", "IdempotentReplayed"))},
        problems=(*WRITE, *BODY, "idempotency_key_required", "invalid_order", "rule_violation",
                  "idempotency_conflict", "version_conflict", *_SIGNED)),
    ("post", "/api/v1/games/{game_id}/spectator-tokens"): Op(
        "Issue a spectator token", ADMIN, tag="umpire", params=_GAME, body=annotations.SpectatorTokenBody,
        description="A named spectator token (wlv_…): it reads the game as a spectator does (public "
                    "information only), a private game too, and once the game has ended annotates under its "
                    "name. It is kept beside the log, not in it; the name is recorded with each annotation. "
                    "At most 50 live at once (409 spectator_token_limit beyond), and 200 umpire and spectator "
                    "tokens issued in all, revoked ones counted (409 tokens_issued_limit beyond); those "
                    "issued keep working.",
        replies={201: Reply("a new spectator token, shown once", annotations.SpectatorToken)},
        problems=(*AUTH_WRITE, *BODY, "spectator_token_limit", "tokens_issued_limit")),
    ("get", "/api/v1/games/{game_id}/spectator-tokens"): Op(
        "List the spectator tokens", ADMIN, tag="umpire", params=_GAME,
        description="Every spectator token ever issued for the game, live and revoked, oldest first: its name, "
                    "id, when it was made and revoked (never the token itself).",
        replies={200: Reply("the spectator tokens", annotations.SpectatorTokens)},
        problems=AUTH_WRITE),
    ("delete", "/api/v1/games/{game_id}/spectator-tokens/{token_id}"): Op(
        "Revoke a spectator token", ADMIN, tag="umpire",
        params=(*_GAME, _path_param("token_id", "the token's id, as in the listing")),
        description="The token answers 401 from now on, in every server process, to a read and to an "
                    "annotation; its row is kept, marked revoked, and the annotations it wrote stay in the "
                    "log. Revoking a revoked token changes nothing (200, `already_revoked` true); an unknown "
                    "id is 404.",
        replies={200: Reply("the token, revoked", annotations.SpectatorTokenRevoked)},
        problems=(*AUTH_WRITE, "not_found")),
    ("delete", "/api/v1/games/{game_id}/spectator-tokens"): Op(
        "Revoke every spectator token of a name", ADMIN, tag="umpire", params=(*_GAME, annotations.SpectatorName),
        description="Every live token issued under `name` (as given when issued, spaces around it ignored) "
                    "answers 401 from now on, as when revoked one by one; the rows are kept. `revoked` says how "
                    "many were live (0: nothing changed). A name no token of the game was issued under is 404; "
                    "no name is 422.",
        replies={200: Reply("the tokens of that name, revoked", annotations.SpectatorNameRevoked)},
        problems=(*AUTH_WRITE, "invalid_request", "not_found")),
    # ---- reads (api/reads.py, api/stream.py). Every read but the stream answers with ETag.
    ("get", "/api/v1/games/{game_id}/state"): Op(
        "The game state, now or at a point in the past", ANY, tag="reads", params=(*_GAME, reads.StateQuery),
        description="The state as the caller may see it (hidden information filtered). Give `at`, or "
                    "`turn` (and optionally `phase`), or nothing for the current state; `at` past the last "
                    "event, `at` with `turn`, or `phase` without `turn` is 422, a turn or phase not reached "
                    "yet is 404 not_found. `version` is the version of the state shown; the ETag is the "
                    "game's current version. Only a read with `turn` counts against the whole-log reads' "
                    "rate limit (429 too_many_reads).",
        replies={200: Reply("the state", reads.StateBody, headers=("ETag", "WarlogDamaged"))},
        problems=(*READ, "not_found", "invalid_request")),
    ("get", "/api/v1/games/{game_id}/vp"): Op(
        "The VP track", ANY, tag="reads", params=_GAME,
        description="VP totals per side and every VP change in order, with the turn and phase, reason and "
                    "rule; changes of a taken-back order are marked `superseded` and do not count.",
        replies={200: Reply("the VP track", reads.VPBody, headers=("ETag", "WarlogDamaged"))},
        problems=(*READ, "invalid_request")),
    ("get", "/api/v1/games/{game_id}/history"): Op(
        "The game's history in words", ANY, tag="reads", params=_GAME,
        description="The events the caller may see, grouped by turn, phase and operation (what one "
                    "command recorded), each line with its readable `text`; the lines of a taken-back order "
                    "are marked `superseded`, as the dice audit marks its rolls.",
        replies={200: Reply("the history", reads.HistoryBody, headers=("ETag", "WarlogDamaged"))},
        problems=(*READ, "invalid_request")),
    ("get", "/api/v1/games/{game_id}/dice"): Op(
        "The dice audit", ANY, tag="reads", params=(*_GAME, reads.DiceQuery),
        description="Every roll with its epoch, dice, purpose, target and outcome, and whether it verifies "
                    "against its epoch's revealed seed; every epoch with its commitment and, once revealed, "
                    "its seed (docs/dice.md). `seat` (exact), `turn` and `purpose` filter the rolls, never "
                    "the epochs.",
        replies={200: Reply("the rolls and epochs", reads.DiceBody, headers=("ETag", "WarlogDamaged"))},
        problems=(*READ, "invalid_request")),
    ("get", "/api/v1/games/{game_id}/events"): Op(
        "Events as export lines, a page at a time", ANY, tag="reads", params=(*_GAME, reads.EventsQuery),
        description="The log as the caller may see it, after seq `after` (default 0), at most `limit` "
                    "(default 100, at most 500). A field hidden from the caller holds its commitment, its "
                    "salt in `data.concealed` null (a format-2 game: the line keeps its hash; docs/dice.md, "
                    "\"Concealed fields\"); in a format-1 game it is removed and the line marked "
                    "`redacted: true` (its hash then no longer matches). Continue with `after=next_after` "
                    "(also in the Link header) until `next_after` is null.",
        replies={200: Reply("a page of events", reads.EventsBody, headers=("ETag", "Link", "WarlogDamaged"))},
        problems=(*READ, "invalid_request")),
    ("get", "/api/v1/games/{game_id}/export"): Op(
        "Export the log as JSON Lines", ANY, tag="reads", params=_GAME,
        description="One export line per event (docs/dice.md section 5), streamed, up to the version in the "
                    "ETag; a format-2 game's (export version 2) begins with its header line "
                    "`{\"warlog_export\": {\"version\": 2, \"server_key\": …}}`. `warlog verify FILE` checks "
                    "it offline: an umpire's file is the exact log and opens every concealed field; anyone "
                    "else's holds commitments in place of what is hidden from them, and verifies too. A "
                    "format-1 game's file has no header line, and anyone's but an umpire's has hidden lines "
                    "redacted, which do not verify.",
        replies={200: Reply("the export", {"type": "string", "description": "one JSON object per line"},
                            media=NDJSON, headers=("ETag", "ContentDisposition", "WarlogDamaged",
                                                   "WarlogServerKey"))},
        problems=(*READ, "invalid_request")),
    ("get", "/api/v1/games/{game_id}/take-backs"): Op(
        "Take-back requests and their answers", ANY, tag="reads", params=_GAME,
        description="Each request with the order it names, its reason and its answer (null while waiting).",
        replies={200: Reply("the take-back requests", reads.TakeBacksBody, headers=("ETag", "WarlogDamaged"))},
        problems=(*READ, "invalid_request")),
    ("get", "/api/v1/games/{game_id}/integrity"): Op(
        "Verify the stored log", ANY, tag="reads", params=_GAME,
        description="Runs the checks of `warlog verify` (docs/dice.md section 6) on the stored game. A log "
                    "that does not verify is still 200, with `ok: false` and the failures; the message of a "
                    "failure at a line hidden from the caller is shown to umpires only.",
        replies={200: Reply("the report", reads.IntegrityBody, headers=("ETag", "WarlogDamaged"))},
        problems=(*AUTH_READ, "invalid_request")),
    ("get", "/api/v1/games/{game_id}/events/stream"): Op(
        "Follow the game's events live", ANY, tag="reads",
        params=(*_GAME, "LastEventID",
                query("after", "string", "where to start without Last-Event-ID: a seq, or `latest` for only "
                                         "new events; default: the first event")),
        description="Server-sent events: `id` is the event's seq, `event` its type and `data` the export line "
                    "with its `text`, as the caller may see it. The stream opens with `retry: 2000`, sends "
                    "`: keep-alive` comments when quiet and ends after a few minutes; reconnect with "
                    "Last-Event-ID. Too many open streams is 503 stream_capacity with Retry-After. Tokens go "
                    "in the Authorization header (read it with fetch; EventSource cannot send headers).",
        replies={200: Reply("the event stream", SSE_EVENT, media=SSE)},
        problems=(*READ, "bad_request", "invalid_request", "stream_capacity")),
    ("get", "/api/v1/games/{game_id}/frames"): Op(
        "The replay frames, made now", ANY, tag="reads", params=_GAME,
        description="The replay the replay viewer steps through, made on request from the whole log by the "
                    "replay job's function (workers/replay.py) for the caller's own view: a seat sees its own "
                    "hidden information, as in every other read. One frame per visible event with its text, "
                    "turn, phase, operation, boundary `marks` (operation, phase, turn), the index of its state "
                    "in `states`, the VP totals and its dice with their verification status; `vp_chart` is an "
                    "SVG chart with a cursor line (`id=\"cursor\"`), null when no VP was scored. Gzipped when "
                    "the client accepts it.",
        replies={200: Reply("the frames", _obj(
            "", game_id="string", ruleset="string", title="string", scenario={"type": ["string", "null"]},
            version="integer", viewer="string",
            states={"type": "array", "items": {"type": "object"}},
            frames={"type": "array", "items": _obj(
                "", seq="integer", type="string", text="string", turn={}, phase={}, operation="integer",
                marks={"type": "array", "items": {"type": "string", "enum": ["operation", "phase", "turn"]}},
                state="integer", vp="object", whose_move="array", redacted="boolean", superseded="boolean",
                dice=_obj("present on a roll", purpose={}, target={}, outcome={},
                          status={"type": "string", "enum": ["verified", "failed", "unrevealed"]}))},
            vp_chart={"type": ["string", "null"]}), headers=("ETag",))},
        problems=(*READ, "invalid_request")),
    # ---- jobs: replays and statistics, made by rq workers
    ("post", "/api/v1/games/{game_id}/replays"): Op(
        "Make the game's replay", ANY, tag="jobs", params=_GAME, body_required=False,
        description="Queues a job that makes the replay at the game's current version: the state after every "
                    "event with operation, phase and turn boundaries (JSON) and one self-contained HTML page "
                    "that steps through it offline. Umpires get the full log, everyone else the public view. "
                    "The job id is derived from game, version and audience: asking again returns the same job, "
                    "and once made the same artifact. Watch it at `status_url`. At most WARLOG_GAME_JOBS (4) "
                    "replay and statistics jobs of one game are queued or running at once: beyond, 503 "
                    "game_jobs_busy with Retry-After.",
        replies={202: Reply("the job", _JOB_ACCEPTED)},
        problems=(*READ, "queue_unavailable", "game_jobs_busy")),
    ("get", "/api/v1/games/{game_id}/replays/{version}"): Op(
        "Download a replay", ANY, tag="jobs",
        params=(*_GAME, _path_param("version", "the version it was made at, or `latest`"), FORMAT_QUERY),
        description="The replay made at `version` (or the latest made) for the caller's audience: `format=html` "
                    "(default) the offline page, `format=json` the frames. 404 until a job has made it.",
        replies={200: Reply("the replay page (or its frames as JSON with format=json)", {"type": "string"},
                            media=HTML)},
        problems=(*AUTH_READ, "invalid_request", "not_found")),
    ("post", "/api/v1/games/{game_id}/statistics"): Op(
        "Make the game's statistics", ANY, tag="jobs", params=_GAME, body_required=False,
        description="Queues a job: dice faces per seat and die size against uniform (chi-square p-value), the "
                    "luck index per seat (successes against the exact expectation of each target rolled "
                    "against), the VP timeline; JSON plus two SVG charts. Idempotent like the replay, and "
                    "counted with it against WARLOG_GAME_JOBS.",
        replies={202: Reply("the job", _JOB_ACCEPTED)},
        problems=(*READ, "queue_unavailable", "game_jobs_busy")),
    ("get", "/api/v1/games/{game_id}/statistics"): Op(
        "Download the game's statistics", ANY, tag="jobs", params=(*_GAME, STATS_QUERY, CHART_QUERY),
        description="The statistics made at `version` (default: the latest made) as JSON, or with `chart=faces` "
                    "or `chart=vp` a chart as SVG. 404 until a job has made them.",
        replies={200: Reply("the statistics (JSON; SVG with chart)", {"type": "object"})},
        problems=(*AUTH_READ, "invalid_request", "not_found")),
    ("post", "/api/v1/statistics"): Op(
        "Make statistics across games", NONE, tag="jobs", params=(RULESET_QUERY, SANDBOX_QUERY), body_required=False,
        description="Queues a job over every public game of the ruleset, as a spectator sees them: win rate "
                    "per side, game length, final VP, order kinds, random events and d66 results against their "
                    "expectation, dice fairness over all games. Sandboxes are left out (`sandboxes_left_out` "
                    "counts them) unless `sandbox=true`.",
        replies={202: Reply("the job", _JOB_ACCEPTED)},
        problems=("invalid_request", "unknown_ruleset", "queue_unavailable", "statistics_busy")),
    ("get", "/api/v1/statistics"): Op(
        "Download statistics across games", NONE, tag="jobs", params=(RULESET_QUERY, SANDBOX_QUERY),
        description="The latest statistics made across the ruleset's public games (with `sandbox=true`: those "
                    "made counting sandboxes too). 404 until a job made them.",
        replies={200: Reply("the statistics", {"type": "object"})},
        problems=("invalid_request", "not_found")),
    ("get", "/api/v1/jobs/{job_id}"): Op(
        "A job's status", ANY, tag="jobs", params=(_path_param("job_id", "the id POST returned"),),
        description="queued, started, scheduled (waiting for a retry), finished, failed, stopped or canceled; "
                    "progress 0-100; for a failed job its error (one line, no traceback) after its retries; "
                    "when finished, `result_url`. A job of a private game is visible to that game's tokens only.",
        replies={200: Reply("the job", _obj("a job", id="string", kind="string", game_id={"type": ["string", "null"]},
                                            status="string", progress="integer",
                                            error={"type": ["string", "null"]},
                                            retries_left={"type": ["integer", "null"]},
                                            result_url={"type": ["string", "null"]}))},
        problems=(*AUTH_READ, "queue_unavailable")),
    # ---- this description
    ("get", "/api/v1/openapi.json"): Op(
        "This API as OpenAPI 3.1", NONE, tag="docs",
        replies={200: Reply("the OpenAPI document", {"type": "object"})}),
    ("get", "/api/docs"): Op(
        "This API as a web page", NONE, tag="docs",
        description="Every operation, its schemas and the problem codes, rendered from the OpenAPI document.",
        replies={200: Reply("the documentation page", {"type": "string"}, media=HTML)}),
}

TAGS = [
    {"name": "service", "description": "health and the rulesets on offer"},
    {"name": "games", "description": "create, list and read games"},
    {"name": "seats", "description": "joining, tokens and client seeds"},
    {"name": "umpire", "description": "an umpire the seats agree to, and its tokens"},
    {"name": "orders", "description": "the write side of play: orders, take-backs, concession"},
    {"name": "reads", "description": "state, history, dice, the log and its live stream"},
    {"name": "jobs", "description": "replays and statistics, made by background workers"},
    {"name": "docs", "description": "this description"},
]

INFO = (
    "An event-sourced game log for board wargames played by mail: the server checks each order "
    "against the game's rules, rolls every die from committed-then-revealed seeds and records "
    "everything in a hash-chained log. Errors are RFC 9457 problems (`application/problem+json`) "
    "with a stable `code`. Request bodies are UTF-8 JSON of at most 64 KiB, with or without "
    "Content-Length (more is 413 payload_too_large), all of it within WARLOG_CLIENT_TIMEOUT seconds (30; else 408 "
    "request_timeout); NaN and Infinity are not JSON (400 bad_request). "
    "Beyond these limits a body is 422 invalid_request, `errors` naming where: arrays and objects nested "
    "at most 16 deep, at most 200 members each and 2,000 values in all; whole numbers within "
    "±9007199254740991 (2**53 − 1) and finite numbers only; texts of at most 4,000 characters and keys "
    "of at most 100, without control characters (tab and newline are allowed in texts, not in keys), "
    "bidirectional overrides or isolates (U+202A–U+202E, U+2066–U+2069) or unpaired surrogates. "
    "Names, codes and seeds (handle, invite_code, client_seed, scenario, ruleset, kind) are one line. "
    "Rate limits the server's operator sets (docs/configuration.md) answer 429 with Retry-After: requests "
    "refused for a token that is not valid or an unknown invite code, per address (too_many_failures); "
    "games created, per address (too_many_games); orders and other writes, per token (too_many_orders); "
    "event streams opened, per address (too_many_streams); reads that go through a game's whole log "
    "(integrity, frames, history, dice, VP track, take-backs, export, the state at a turn) and forks, per address "
    "(too_many_reads); reads of the games list, per address (too_many_lists). "
    "Every query parameter is given at most once: one given twice (`?at=1&at=2`) is 422 invalid_request "
    "naming it. "
    "Their defaults are far above what a player does.")


# The getting-started requests of /api/docs and docs/api.md; a test sends them.
EXAMPLES = {
    "create": {"ruleset": "freeform", "public": False,
               "options": {"sides": ["Blue", "Red"], "phases": ["Move", "Fight"]}},
    "join": {"invite_code": "wli_the-invite-code", "handle": "alice", "client_seed": "any text of yours"},
    "order_id": "blue-0001",
    "order": {"kind": "roll", "dice": "2d6", "purpose": "3 Bde fires at the bridge",
              "target": {"compare": ">=", "value": 8}},
}


# ------------------------------------------------------------------------------ the document ----
def _template(path: str) -> str:
    """A path with its parameters unnamed, so Flask's <game_id> matches OpenAPI's {game_id}."""
    return re.sub(r"<(?:[^<>:]+:)?[^<>]+>", "{}", re.sub(r"\{[^{}]+\}", "{}", path))


def served(app: Flask) -> set[tuple[str, str]]:
    """(method, path template) of every route the app serves, HEAD and OPTIONS aside."""
    return {(method.lower(), _template(rule.rule)) for rule in app.url_map.iter_rules()
            for method in rule.methods or () if method not in ("HEAD", "OPTIONS")}


def _schema_name(schema: Any) -> str:
    resolved = resolve_schema_cls(schema)
    cls = resolved[0] if isinstance(resolved, list) else resolved
    return cls.__name__


def _problem_responses(codes: tuple[str, ...]) -> dict[str, dict]:
    by_status: dict[int, list[str]] = {}
    for code in dict.fromkeys((*codes, *EVERYWHERE)):
        by_status.setdefault(PROBLEMS[code][0], []).append(code)
    responses = {}
    for status, group in sorted(by_status.items()):
        response = {
            "description": "; ".join(f"{code}: {PROBLEMS[code][1]}" for code in group),
            "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}},
            "x-problem-codes": group,
        }
        if status in _PROBLEM_HEADERS:
            response["headers"] = {_HEADER_NAMES[h]: {"$ref": f"#/components/headers/{h}"}
                                   for h in _PROBLEM_HEADERS[status]}
        responses[str(status)] = response
    return responses


def _operation(method: str, path: str, op: Op) -> dict:
    out: dict[str, Any] = {
        "operationId": _operation_id(method, path), "summary": op.summary, "tags": [op.tag],
        "x-warlog-auth": op.auth, "security": _SECURITY[op.auth],
        "description": "\n\n".join(p for p in (op.description, f"Auth: {AUTH_TEXT[op.auth]}") if p),
    }
    params = []
    for param in op.params:
        if isinstance(param, str):
            params.append(param)  # a component name: apispec writes the $ref
        elif isinstance(param, dict):
            params.append(copy.deepcopy(param))
        else:
            params.append({"in": "query", "schema": param})
    if params:
        out["parameters"] = params
    if op.body is not None:
        out["requestBody"] = {"required": op.body_required,
                              "content": {JSON: {"schema": copy.deepcopy(op.body)}}}
    responses: dict[str, dict] = {}
    for status, reply in sorted(op.replies.items()):
        response: dict[str, Any] = {"description": reply.description}
        if reply.schema is not None:
            response["content"] = {reply.media: {"schema": copy.deepcopy(reply.schema)}}
        if reply.headers:
            response["headers"] = {_HEADER_NAMES[h]: {"$ref": f"#/components/headers/{h}"} for h in reply.headers}
        responses[str(status)] = response
    responses.update(_problem_responses((*op.problems, *_rate_limited(method, path))))
    out["responses"] = responses
    return out


def _rate_limited(method: str, path: str) -> tuple[str, ...]:
    """The 429s the rate limits (api/limits.py) can answer this operation with, by the limits' own tests."""
    codes = []
    if limits.reads_token(path):
        codes.append("too_many_failures")  # a token that is not valid, an unknown invite code
        if method.upper() in limits.WRITES:
            codes.append("too_many_orders")
    if path.endswith(limits.STREAM_PATH):
        codes.append("too_many_streams")
    if method.upper() == "GET" and path.startswith("/api/v1/games/{game_id}/") and path.endswith(
            tuple(limits.WHOLE_LOG_READS.values())):
        codes.append("too_many_reads")  # the state: only with ?turn= (its description says so)
    if method.upper() == "POST" and path.endswith(tuple(limits.FOLDING_WRITES.values())):
        codes.append("too_many_reads")  # a fork folds the source's log up to its event
    if method.upper() == "GET" and path == limits.LIST_PATH:
        codes.append("too_many_lists")
    return tuple(codes)


def _operation_id(method: str, path: str) -> str:
    words = [w for w in re.split(r"[^A-Za-z0-9]+", path.replace("{game_id}", "game")) if w and w not in ("api", "v1")]
    return method + "".join(w[:1].upper() + w[1:] for w in words)


def build_document(app: Flask | None = None) -> dict:
    """The OpenAPI document; with ``app``, only the operations that app serves."""
    routes = served(app) if app is not None else None
    spec = APISpec(title="warlog", version=_version(), openapi_version=OPENAPI_VERSION,
                   plugins=[MarshmallowPlugin(schema_name_resolver=_schema_name)],
                   info={"description": INFO}, servers=[{"url": "/"}], tags=TAGS)
    spec.components.security_scheme("bearerAuth", {
        "type": "http", "scheme": "bearer",
        "description": "A token from POST /api/v1/games (admin), .../join (seat) or .../umpire-tokens (umpire)."})
    spec.components.schema("Problem", schema=Problem)
    spec.components.schema("Line", schema=schemas.Line)
    for name, param in PARAMETERS.items():
        spec.components.parameter(name, param["in"], copy.deepcopy(param))
    for name, header in HEADERS.items():
        spec.components.header(name, copy.deepcopy(header))
    paths: dict[str, dict[str, dict]] = {}
    for (method, path), op in OPERATIONS.items():
        if routes is None or (method, _template(path)) in routes:
            paths.setdefault(path, {})[method] = _operation(method, path, op)
    for path, operations in paths.items():
        spec.path(path=path, operations=operations)
    return spec.to_dict()


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("warlog")
    except Exception:  # running from a checkout that was never installed
        return "0.0.0"


def document() -> dict:
    """The current app's document, built once per app (its routes do not change after start-up)."""
    cached = current_app.extensions.get("warlog_openapi")
    if cached is None:
        cached = current_app.extensions["warlog_openapi"] = build_document(current_app)
    return cached


# ---------------------------------------------------------------------------- the HTML page ----
@dataclass
class FieldRow:
    name: str
    type: str
    depth: int = 0
    required: bool = False
    notes: list[str] = field(default_factory=list)


def _resolve(schema: dict, doc: dict) -> tuple[dict, str | None]:
    ref = schema.get("$ref")
    if not ref:
        return schema, None
    name = ref.rsplit("/", 1)[-1]
    return doc["components"]["schemas"].get(name, {}), name


def type_label(schema: dict, doc: dict) -> str:
    if "$ref" in schema:
        return _resolve(schema, doc)[1] or "object"
    kinds = schema.get("type", "any")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    labels = []
    for kind in kinds:
        if kind == "array":
            labels.append(f"array of {type_label(schema.get('items', {}), doc)}")
        elif kind == "object" and isinstance(schema.get("additionalProperties"), dict) \
                and not schema.get("properties"):
            inner = schema["additionalProperties"]
            labels.append(f"map of {type_label(inner, doc)}" if inner else "object")
        else:
            labels.append(kind + (f" ({schema['format']})" if schema.get("format") and kind != "null" else ""))
    return " or ".join(labels)


def _notes(schema: dict) -> list[str]:
    notes = []
    if schema.get("description"):
        notes.append(schema["description"])
    if "enum" in schema:
        notes.append("one of: " + ", ".join(f"`{v}`" for v in schema["enum"]))
    bounds = [(k, schema[k]) for k in ("minLength", "maxLength", "minimum", "maximum") if k in schema]
    if bounds:
        names = {"minLength": "min length", "maxLength": "max length", "minimum": "min", "maximum": "max"}
        notes.append(", ".join(f"{names[k]} {v}" for k, v in bounds))
    if "default" in schema:
        notes.append(f"default `{json.dumps(schema['default'])}`")
    return notes


def field_rows(schema: dict | None, doc: dict, depth: int = 0, prefix: str = "",
               seen: frozenset = frozenset()) -> list[FieldRow]:
    """A schema as a flat list of fields, $refs expanded (each schema once per branch)."""
    if not schema:
        return []
    target, name = _resolve(schema, doc)
    if name in seen:
        return []
    seen = seen | {name} if name else seen
    if target.get("type") == "array" or "array" in (target.get("type") or []):
        items = target.get("items", {})
        rows = [] if prefix else [FieldRow("(body)", type_label(target, doc), 0, notes=_notes(target))]
        return rows + field_rows(items, doc, depth, f"{prefix}[]", seen)
    properties = target.get("properties") or {}
    rows = []
    if not prefix and not properties:
        rows.append(FieldRow("(body)", type_label(schema, doc), 0, notes=_notes(target)))
    required = set(target.get("required") or [])
    for key, prop in properties.items():
        path = f"{prefix}.{key}" if prefix else key
        row = FieldRow(path, type_label(prop, doc), depth, key in required, _notes(_resolve(prop, doc)[0] | prop))
        rows.append(row)
        rows.extend(field_rows(prop, doc, depth + 1, path, seen))
    if target.get("additionalProperties") is True and properties:
        rows.append(FieldRow(f"{prefix}.*" if prefix else "*", "any", depth,
                             notes=["other fields are allowed (the ruleset's own fields)"]))
    return rows


def _param(param: dict, doc: dict) -> dict:
    if "$ref" in param:
        param = doc["components"]["parameters"][param["$ref"].rsplit("/", 1)[-1]]
    description = param.get("description", "").rstrip(".")
    return {"name": param["name"], "in": param["in"], "required": param.get("required", False),
            "type": type_label(param.get("schema", {}), doc),
            "notes": ([description] if description else []) + _notes(param.get("schema", {}))}


def page_model(doc: dict) -> dict:
    """What the template shows: operations grouped by tag, with fields expanded, and the problems."""
    operations = []
    returned_by: dict[str, list[dict]] = {code: [] for code in PROBLEMS}
    for path, item in doc["paths"].items():
        for method, op in item.items():
            entry = {"method": method.upper(), "path": path, "id": f"op-{op['operationId']}",
                     "summary": op["summary"], "tag": op["tags"][0], "auth": op["x-warlog-auth"],
                     "auth_text": AUTH_TEXT[op["x-warlog-auth"]],
                     "description": op.get("description", "").split("\n\nAuth: ")[0],
                     "params": [_param(p, doc) for p in op.get("parameters", [])],
                     "body": None, "responses": [], "problems": []}
            if "requestBody" in op:
                media, content = next(iter(op["requestBody"]["content"].items()))
                entry["body"] = {"media": media, "fields": field_rows(content.get("schema"), doc)}
            for status, response in op["responses"].items():
                codes = response.get("x-problem-codes")
                if codes:
                    for code in codes:
                        entry["problems"].append({"code": code, "status": int(status), "title": PROBLEMS[code][1]})
                        returned_by[code].append(entry)
                    continue
                media, content = next(iter(response.get("content", {}).items()), (None, {}))
                entry["responses"].append({
                    "status": status, "description": response["description"], "media": media,
                    "headers": list(response.get("headers", {})),
                    "fields": field_rows(content.get("schema"), doc)})
            operations.append(entry)
    order = {(method.upper(), path): n for n, (method, path) in enumerate(OPERATIONS)}
    operations.sort(key=lambda o: order.get((o["method"], o["path"]), len(order)))
    groups = []
    for tag in doc.get("tags", []):
        ops = [o for o in operations if o["tag"] == tag["name"]]
        if ops:
            groups.append({"name": tag["name"], "description": tag["description"], "operations": ops})
    problems = [{"code": code, "status": status, "title": title, "where": WHERE.get(code),
                 "not_answered": NOT_ANSWERED.get(code),
                 "returned_by": sorted(returned_by[code], key=operations.index)}
                for code, (status, title) in PROBLEMS.items()]
    return {"title": doc["info"]["title"], "version": doc["info"]["version"],
            "description": doc["info"]["description"], "groups": groups, "problems": problems,
            "auth": AUTH_TEXT}


_CODE = re.compile(r"`([^`]+)`")


def inline(text: str) -> Markup:
    """Escaped text with `backticks` as <code>."""
    return Markup(_CODE.sub(lambda m: f"<code>{m.group(1)}</code>", str(escape(text))))


def sentence(text: str) -> str:
    """The first letter in capitals and a full stop (Jinja's capitalize lowercases the rest)."""
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


bp.add_app_template_filter(inline, "inline")
bp.add_app_template_filter(sentence, "sentence")


# ----------------------------------------------------------------------------------- views ----
# /api/docs is one HTML page with its style inline and no script.
DOCS_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; "
            "base-uri 'none'; form-action 'none'")


@bp.get("/api/v1/openapi.json")
def openapi_json():
    return jsonify(document())


@bp.get("/api/docs")
def docs_page():
    base = request.url_root.rstrip("/")
    examples = {k: v if isinstance(v, str) else json.dumps(v) for k, v in EXAMPLES.items()}
    response = make_response(render_template("api_docs.html", page=page_model(document()), base=base,
                                             examples=examples))
    response.headers["Content-Security-Policy"] = DOCS_CSP
    return response


# ------------------------------------------------------------------------- docs/api.md table ----
def problems_markdown() -> str:
    """The problem codes table of docs/api.md (a test checks the file holds exactly this)."""
    rows = ["| code | status | title |", "|---|---|---|"]
    rows += [f"| `{code}` | {status} | {title} |" for code, (status, title) in PROBLEMS.items()]
    return "\n".join(rows)


def endpoints_markdown() -> str:
    """The endpoint table of docs/api.md, from OPERATIONS."""
    rows = ["| method | path | auth | summary |", "|---|---|---|---|"]
    rows += [f"| {method.upper()} | `{path}` | {op.auth} | {op.summary} |"
             for (method, path), op in OPERATIONS.items()]
    return "\n".join(rows)


if __name__ == "__main__":  # python -m api.openapi: print the two tables of docs/api.md
    sys.stdout.write(problems_markdown() + "\n\n" + endpoints_markdown() + "\n")
