"""Who is calling, for one game: the only place that turns a bearer token into a role.

- no token, or a token for another game: a spectator of a public game; a private or unknown game
  is 404 either way, so nobody learns that a private game exists;
- a spectator token (issued by the admin, with a name): a spectator of this game, public or
  private, known by that name (it annotates under it once the game has ended);
- a token that is not a token at all, a revoked umpire or spectator token, or a seat token its seat
  replaced (POST .../seat-token): 401;
- a valid token for this game without the needed role (an umpire ordering, a seat issuing umpire
  tokens): 403.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app, request

from domain.access import ADMIN, SEAT, SPECTATOR, UMPIRE, AccessStore
from api.problems import ApiProblem
from domain.rulesets import UMPIRE as UMPIRE_VIEWER
from domain.service import parse_game_id

CHALLENGE = {"WWW-Authenticate": 'Bearer realm="warlog"'}


@dataclass(frozen=True)
class Caller:
    game_id: str
    role: str  # admin, seat, umpire or spectator
    seat: str | None = None
    name: str | None = None  # a spectator token's name; None for a spectator without a token

    @property
    def viewer(self) -> str | None:
        """The name hidden-information filtering knows this caller by."""
        if self.role == SEAT:
            return self.seat
        if self.role == UMPIRE:
            return UMPIRE_VIEWER
        return None


def access() -> AccessStore:
    return current_app.extensions["warlog_access"]


def token_in(header: str) -> str | None:
    """The token of an Authorization header as the server reads it ('bearer' in any case, spaces
    around the token ignored); None when the header is not 'Bearer <token>'. The writes limit
    counts per token by it (api/limits.py): one token has one count however it is spelled."""
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def bearer_token() -> str | None:
    header = request.headers.get("Authorization")
    if header is None:
        return None
    token = token_in(header)
    if token is None:
        raise ApiProblem("unauthorized", "use 'Authorization: Bearer <token>'", CHALLENGE)
    return token


def not_valid(token: str) -> ApiProblem:
    """The 401 for a token that is not valid. A seat token its seat replaced says when: its owner,
    who did not replace it, learns that it leaked and that whoever replaced it holds the seat now
    (docs/api.md, "A seat's token replaced"), instead of taking it for a glitch."""
    when = access().replaced_at(token)
    if when is None:
        return ApiProblem("unauthorized", "this token is not valid", CHALLENGE)
    return ApiProblem("unauthorized", f"this token is not valid: it is a seat token replaced at {when} "
                      "(POST .../seat-token). If you did not replace it, it leaked and whoever replaced it holds "
                      "the seat: tell the game's admin and your opponents", CHALLENGE)


def caller_for(game_id: str, need: str | None = None) -> Caller:
    """The caller's role in ``game_id``; ``need`` is None (read), SEAT or ADMIN."""
    gid = str(parse_game_id(game_id))  # a malformed id is a GameNotFound, like an unknown one
    token = bearer_token()
    grant = access().grant(token) if token else None
    if token and grant is None:
        raise not_valid(token)
    mine = grant is not None and grant.game_id == gid
    if not mine and not access().is_public(gid):
        # the same words for an unknown game and a private one: they tell the two apart no more
        why = "the token sent is not one of its own" if token else "no token was sent"
        raise ApiProblem("game_not_found", f"no game {game_id}, or it is private and {why}")
    if need is not None:
        if grant is None:
            raise ApiProblem("unauthorized", f"this needs {_a(need)} token for the game", CHALLENGE)
        if not mine:
            raise ApiProblem("forbidden", "this token is for another game")
        if grant.role != need:
            why = ("umpires see everything and change nothing" if grant.role == UMPIRE
                   else f"this needs {_a(need)} token, not {_a(grant.role)} token")
            raise ApiProblem("forbidden", why)
    if mine and grant.role == SPECTATOR:
        return Caller(gid, SPECTATOR, name=grant.seat)
    if mine:
        return Caller(gid, grant.role, grant.seat)
    return Caller(gid, SPECTATOR)


def own_caller(game_id: str) -> Caller:
    """The caller whose token is of ``game_id``, any role: 401 without a token or with one that is
    not valid, 403 with another game's (a public game's; a private one is 404, as everywhere)."""
    caller = caller_for(game_id)
    token = bearer_token()
    if token is None:
        raise ApiProblem("unauthorized", "send a token of this game to learn its role in it", CHALLENGE)
    grant = access().grant(token)
    if grant is None:  # revoked between the two reads
        raise not_valid(token)
    if grant.game_id != caller.game_id:
        raise ApiProblem("forbidden", "this token is for another game")
    return caller


def _a(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


__all__ = ["CHALLENGE", "ADMIN", "SEAT", "UMPIRE", "SPECTATOR", "Caller", "caller_for", "own_caller", "bearer_token", "not_valid",
           "token_in", "access"]
