"""A small client for the warlog HTTP API (``/api/v1``), on the standard library only.

    client = WarlogClient("http://127.0.0.1:8000", token="wls_…")
    result = client.submit_order(game_id, {"kind": "roll", "dice": "2d6", "purpose": "fire"})
    for event in client.stream(game_id):
        print(event.data["text"])

Every method returns the decoded JSON body, whose objects, lists, texts and numbers are the
plain types' subclasses (``answer_of``): a field missing, or read as another shape than it has,
raises :class:`UnexpectedAnswer` naming the request and the field. A problem response (RFC 9457,
any 4xx or 5xx) raises :class:`ProblemError` with the problem's ``code``, ``detail`` and ``rule``; a server that cannot be
reached, or that answers with something that is not HTTP, raises :class:`ConnectionFailed`.
Tokens are sent as ``Authorization: Bearer`` and never appear in an error message.
"""

from __future__ import annotations

import http.client
import json
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

API_PREFIX = "/api/v1"
DEFAULT_TIMEOUT = 30.0
USER_AGENT = "warlog-client/1"
LIST_ANSWERS = {("GET", "/rulesets")}  # the one answer of the API that is a JSON array; every other is an object


class ClientError(Exception):
    """Base of the errors this client raises."""


class ConnectionFailed(ClientError):
    """The server could not be reached, or did not answer with HTTP."""


class UnexpectedAnswer(ClientError, KeyError):
    """The server answered with JSON, but not of the shape the API promises: a field missing, a
    list where an object is promised. A KeyError too, so a reader that falls back on a missing
    field still does."""

    def __init__(self, request: str, what: str):
        super().__init__(f"the server's answer to {request} was not what the API promises: {what}")

    def __str__(self) -> str:  # not KeyError's quoted repr
        return str(self.args[0])


class Answer(dict):
    """A JSON object of an answer: a field it lacks raises UnexpectedAnswer naming it."""

    def __init__(self, items: Any, request: str, path: str):
        super().__init__(items)
        self.request, self.path = request, path

    def __missing__(self, key: Any):
        raise UnexpectedAnswer(self.request, f"no field {_field_path(self.path, key)!r}")


class AnswerList(list):
    """A JSON array of an answer: read as an object, or past its end, it raises UnexpectedAnswer."""

    def __init__(self, items: Any, request: str, path: str):
        super().__init__(items)
        self.request, self.path = request, path

    def __getitem__(self, index: Any):
        if isinstance(index, slice):
            return super().__getitem__(index)
        if not isinstance(index, int):
            raise self._not_an_object(index)
        try:
            return super().__getitem__(index)
        except IndexError:
            raise UnexpectedAnswer(self.request, f"no item {self.path or 'answer'}[{index}]") from None

    def get(self, key: Any, default: Any = None):
        raise self._not_an_object(key)

    def _not_an_object(self, key: Any) -> UnexpectedAnswer:
        return UnexpectedAnswer(self.request, f"{self.path or 'the answer'} is a list, not an object with a "
                                              f"field {key!r}")


class _Scalar:
    """A text or number of an answer, read as an object or a list: UnexpectedAnswer naming it."""

    request: str
    path: str

    def _wrong(self, *_: Any) -> Any:
        raise UnexpectedAnswer(self.request, f"{self.path or 'the answer'!r} is {_json_type(type(self))}, "
                                             "not an object or a list")

    get = items = keys = values = _wrong


class AnswerText(_Scalar, str):
    def __getitem__(self, index: Any):
        return str.__getitem__(self, index) if isinstance(index, (int, slice)) else self._wrong()

    def __iter__(self):  # a text read as a list: each character says whose it is if read as an object
        for char in str.__iter__(self):
            yield _marked(AnswerText(char), self.request, self.path)


class AnswerKey(AnswerText):
    """A field's name, met where a list is promised (an object iterated): says so when read."""

    def _wrong(self, *_: Any) -> Any:
        raise UnexpectedAnswer(self.request, f"{self.path or 'the answer'!r} is an object, not a list")

    get = items = keys = values = _wrong


class AnswerNumber(_Scalar, int):
    __iter__ = __len__ = __getitem__ = _Scalar._wrong


class AnswerFloat(_Scalar, float):
    __iter__ = __len__ = __getitem__ = _Scalar._wrong


_SCALARS = ((str, AnswerText), (int, AnswerNumber), (float, AnswerFloat))


def answer_of(value: Any, request: str, path: str = "") -> Any:
    """A decoded JSON answer whose values say which field of the answer to ``request`` (e.g.
    "GET /api/v1/games/…") is missing or of another shape when the CLI reads them: a field an
    object lacks, a list or a text read as an object, a number read as a list (UnexpectedAnswer).
    They are the same JSON values (dict, list, str, int, float subclasses); true, false and null
    stay as they are."""
    if isinstance(value, dict):
        return Answer({_marked(AnswerKey(k), request, path): answer_of(v, request, _field_path(path, k))
                       for k, v in value.items()}, request, path)
    if isinstance(value, list):
        return AnswerList([answer_of(v, request, f"{path or 'answer'}[{i}]") for i, v in enumerate(value)],
                          request, path)
    for kind, wrapper in _SCALARS:
        if isinstance(value, kind) and not isinstance(value, bool):
            return _marked(wrapper(value), request, path)
    return value


def _marked(value: _Scalar, request: str, path: str) -> Any:
    value.request, value.path = request, path
    return value


def promised(answer: Any, name: str, kind: type = str) -> Any:
    """``answer[name]``, which the API promises is a ``kind`` (str, int, list or dict): another
    type raises UnexpectedAnswer naming the field, as a missing field does. For the values the
    CLI keeps or sends back (ids, tokens), where a wrong type would be saved or fail later."""
    value = answer[name]
    if isinstance(value, kind) and not (kind is not bool and isinstance(value, bool)):
        return value
    where = _field_path(getattr(answer, "path", ""), name)
    raise UnexpectedAnswer(getattr(answer, "request", "a request"),
                           f"{where!r} is {_json_type(type(value))}, not {_json_type(kind)}")


_JSON_TYPES = ((bool, "true or false"), (dict, "an object"), (list, "a list"), (str, "a text"),
               ((int, float), "a number"), (type(None), "null"))


def _json_type(kind: type) -> str:
    return next((name for base, name in _JSON_TYPES if issubclass(kind, base)), kind.__name__)


def _field_path(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


class ProblemError(ClientError):
    """The server answered with a problem (RFC 9457): nothing was recorded."""

    def __init__(self, status: int, code: str | None, detail: str, rule: str | None = None,
                 body: dict | None = None, headers: dict | None = None):
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.rule = rule
        self.body = body or {}
        self.headers = headers or {}

    def __str__(self) -> str:
        return f"{self.detail} [{self.rule}]" if self.rule else self.detail

    def __repr__(self) -> str:
        return f"ProblemError({self.status}, {self.code!r}, {self.detail!r}, {self.rule!r})"


@dataclass
class StreamEvent:
    """One server-sent event: ``id`` (the seq), ``event`` (the event type) and the decoded ``data``."""

    id: str | None
    event: str
    data: Any
    raw: str = field(default="", repr=False)

    @property
    def seq(self) -> int | None:
        try:
            return int(self.id) if self.id is not None else None
        except ValueError:
            return None

    @property
    def text(self) -> str:
        if isinstance(self.data, dict):
            return str(self.data.get("text") or self.data.get("type") or self.event)
        return self.raw


# What a server URL or a token may hold: printable ASCII without spaces (a header value and a
# request line are sent as ASCII or Latin-1, and a control character would end the header).
_SENDABLE = re.compile(r"[\x21-\x7e]+")
# What another header's value (an Idempotency-Key) may hold: what http.client can send in one line.
_HEADER_TEXT = re.compile(r"[\x20-\x7e\xa0-\xff]+")


# The invite link the lobby gives (docs/pages.md): SERVER/games/GAME_ID#invite=CODE.
INVITE_LINK = re.compile(r"^(https?://[^\s#?]+?)/games/([0-9a-fA-F-]{36})/?#invite=([^&\s]+)$")
# Why an invite link is not joined as it is, in the words of `warlog join` and of the lobby's join
# form (api/templates/pages/lobby.html): a host after 'user@' ({server}: the link's, {host}: the one
# it goes to), and, on the lobby, another server's link ({here}: the lobby's own server).
LINK_WITH_USER = ("the link's server {server} names its host after a 'user@' part, so it goes to {host}, not to the "
                  "name before the '@': no warlog link has one; ask whoever sent it for the link the lobby or "
                  "'warlog new' gave")
LINK_ELSEWHERE = ("the link's server {server} is not this one ({here}): the game and its invite are there; open the "
                  "link to join on it")


def api_base(server: str) -> str:
    """``http://host:port`` or ``http://host:port/api/v1`` (a scheme is optional) -> the API base."""
    server = server.strip()
    if "://" not in server:
        server = "http://" + server
    if not _SENDABLE.fullmatch(server):  # a request line is ASCII; a space or a control would split it
        raise ClientError(f"not an http(s) server URL: {server!r} (printable ASCII, no spaces: "
                          "percent-encode the rest, e.g. a host name in its xn-- form)")
    try:
        parts = urllib.parse.urlsplit(server)
        _ = parts.port  # a port that is not a number, or out of range, raises here, not at a request
    except ValueError as exc:  # an unclosed IPv6 bracket, a port out of range
        raise ClientError(f"not an http(s) server URL: {server!r} ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ClientError(f"not an http(s) server URL: {server!r}")
    path = parts.path.rstrip("/")
    if not path.endswith(API_PREFIX):
        path += API_PREFIX
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def _quote(game_id: str) -> str:
    return urllib.parse.quote(str(game_id), safe="")


def _signed_headers(signature: str | None, head: str | None) -> dict:
    """A keyed seat's signature and the head it signed over, as headers (docs/api.md, "Signed orders")."""
    headers = {}
    if signature is not None:
        headers["Warlog-Signature"] = signature
    if head is not None:
        headers["Warlog-Head"] = head
    return headers


STORE_RETRIES = 3  # a 503 store_unavailable, tried again after Retry-After (WarlogClient.request)
# A 429 of a rate limit records nothing, so any request may be sent again after its Retry-After:
# the client waits, up to STORE_RETRIES times, when that is at most this many seconds, and
# otherwise raises at once (a game creation refused for the next hour).
RATE_LIMIT_WAIT = 30.0
# The longest a server's word makes the client wait before asking again (Retry-After, an event
# stream's retry: field): a larger value (a server that is not warlog) is read as this.
MAX_WAIT = 60.0
# What the client reads of one answer at most: a server (a link's, or one that is not warlog) that
# sends without end would otherwise fill this machine's memory. Far above any warlog answer.
MAX_ANSWER = 64 * 2**20  # a JSON answer
MAX_LINE = 16 * 2**20  # a line of an export, an event of the live stream
MAX_PROBLEM = 2**16  # the body of a refusal


class WarlogClient:
    """One server, optionally one bearer token. Methods map one to one onto the API's endpoints."""

    def __init__(self, base_url: str, token: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                 on_damaged: Callable[[str], None] | None = None):
        self.base_url = api_base(base_url)
        if token and not _SENDABLE.fullmatch(token):  # never the token itself in the message
            raise ClientError("the token holds a space, a line break or a character outside printable ASCII, "
                              "which no warlog token has: copy it again (--token, WARLOG_TOKEN or the config file)")
        self.token = token
        self.timeout = timeout
        # Called with the line of a read's Warlog-Damaged header (a game whose stored log fails
        # verification, docs/api.md "Damaged logs").
        self.on_damaged = on_damaged

    def with_token(self, token: str | None) -> "WarlogClient":
        return WarlogClient(self.base_url, token, self.timeout, self.on_damaged)

    def __repr__(self) -> str:  # never the token
        return f"WarlogClient({self.base_url!r}, token={'set' if self.token else None})"

    # ------------------------------------------------------------------------- transport --
    def _url(self, path: str, query: dict | None = None) -> str:
        url = self.base_url + path
        if query:
            pairs = {k: v for k, v in query.items() if v is not None}
            if pairs:
                url += "?" + urllib.parse.urlencode(pairs)
        return url

    def _open(self, method: str, path: str, *, body: Any = None, query: dict | None = None,
              headers: dict | None = None, timeout: float | None = None):
        """The open response of a 2xx answer; a problem raises ProblemError, no answer ConnectionFailed."""
        data = None
        hdrs = {"Accept": "application/json, application/problem+json", "User-Agent": USER_AGENT}
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            hdrs["Content-Type"] = "application/json"
        if self.token:
            hdrs["Authorization"] = f"Bearer {self.token}"
        for name, value in (headers or {}).items():  # an Idempotency-Key given by hand (--order-id, --key)
            if not _HEADER_TEXT.fullmatch(value):
                raise ClientError(f"the {name} header cannot carry {value!r}: 1 or more characters, no line break "
                                  "nor control character, nothing outside Latin-1")
        hdrs.update(headers or {})
        url = self._url(path, query)
        request = urllib.request.Request(url, data=data, headers=hdrs, method=method)
        try:
            return urllib.request.build_opener(_NoRedirects).open(request, timeout=timeout or self.timeout)
        except urllib.error.HTTPError as exc:
            try:
                raise _problem(exc.code, exc.reason, exc.headers, _read_safely(exc)) from None
            finally:
                exc.close()
        except urllib.error.URLError as exc:
            reason = exc.reason
            why = reason.strerror if isinstance(reason, OSError) and reason.strerror else str(reason)
            raise ConnectionFailed(f"cannot reach {self.base_url}: {why}") from None
        except (socket.timeout, TimeoutError):
            raise ConnectionFailed(f"{self.base_url} did not answer within {timeout or self.timeout:g} s") from None
        except (http.client.HTTPException, OSError) as exc:
            raise ConnectionFailed(f"cannot talk to {self.base_url}: {exc or type(exc).__name__}") from None

    def request(self, method: str, path: str, *, body: Any = None, query: dict | None = None,
                headers: dict | None = None) -> tuple[int, dict, Any]:
        """(status, headers, decoded JSON body) of one call. A 503 ``store_unavailable`` (the
        server's store was busy) is tried again after its Retry-After, up to ``STORE_RETRIES``
        times, where that cannot record anything twice: a read, or an order (its
        Idempotency-Key makes the server record it at most once). A 429 of a rate limit, which
        recorded nothing, is tried again the same way for any request when its Retry-After is at
        most ``RATE_LIMIT_WAIT`` seconds."""
        retries = STORE_RETRIES if method == "GET" or "Idempotency-Key" in (headers or {}) else 0
        for attempt in range(STORE_RETRIES + 1):
            try:
                return self._request(method, path, body=body, query=query, headers=headers)
            except ProblemError as exc:
                wait = _retry_after(exc.headers.get("Retry-After"), 2.0)
                again = (exc.code == "store_unavailable" and attempt < retries) or \
                        (exc.status == 429 and wait <= RATE_LIMIT_WAIT and attempt < STORE_RETRIES)
                if not again:
                    raise
                time.sleep(wait)
        raise AssertionError("unreachable")

    def _request(self, method: str, path: str, *, body: Any = None, query: dict | None = None,
                 headers: dict | None = None) -> tuple[int, dict, Any]:
        with self._open(method, path, body=body, query=query, headers=headers) as response:
            try:
                raw = response.read(MAX_ANSWER + 1)
            except (socket.timeout, TimeoutError):
                raise ConnectionFailed(f"{self.base_url} stopped answering") from None
            except (http.client.HTTPException, OSError) as exc:
                raise ConnectionFailed(f"the connection to {self.base_url} broke: {exc}") from None
            if len(raw) > MAX_ANSWER:
                raise ConnectionFailed(f"{self.base_url}{path} answered more than {MAX_ANSWER // 2**20} MiB: "
                                       f"no warlog answer is that large; is {self.base_url} a warlog server?")
            status, resp_headers = response.status, dict(response.headers.items())
            damaged = response.headers.get("Warlog-Damaged")
        if damaged and self.on_damaged is not None:
            self.on_damaged(damaged)
        if not raw:
            return status, resp_headers, None
        try:
            decoded = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise ConnectionFailed(f"{self.base_url}{path} did not answer with JSON "
                                   f"(HTTP {status}, {resp_headers.get('Content-Type', 'no content type')})") from None
        if not isinstance(decoded, list if (method, path) in LIST_ANSWERS else dict):
            # another service's JSON (a proxy, the wrong URL): said, as an answer that is no JSON is
            raise ConnectionFailed(f"{self.base_url}{path} answered with JSON that is not a warlog answer "
                                   f"(HTTP {status}, {type(decoded).__name__}): is {self.base_url} a warlog server?")
        return status, resp_headers, answer_of(decoded, f"{method} {API_PREFIX}{path}")

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        return self.request(method, path, **kwargs)[2]

    # ------------------------------------------------------------------------------ misc --
    def rulesets(self) -> list[dict]:
        return self._json("GET", "/rulesets")

    def ruleset(self, name: str) -> dict:
        """``{name, title, board}``: the board names the game's units and areas."""
        return self._json("GET", f"/rulesets/{_quote(name)}")

    # ----------------------------------------------------------------------------- games --
    def create_game(self, ruleset: str, options: dict | None = None, *, scenario: str | None = None,
                    public: bool = False, umpire: str | None = None, position: str | None = None,
                    time_control: dict | None = None) -> dict:
        body: dict[str, Any] = {"ruleset": ruleset, "options": options or {}, "public": public}
        if time_control is not None:
            body["time_control"] = time_control
        if scenario is not None:
            body["scenario"] = scenario
        if umpire is not None:
            body["umpire"] = umpire
        if position is not None:
            body["position"] = position
        return self._json("POST", "/games", body=body)

    def fork_sandbox(self, game_id: str, at: int, *, public: bool = False, umpire: str | None = None) -> dict:
        """A sandbox of the game from its state right after event ``at`` (docs/api.md)."""
        body: dict[str, Any] = {"at": at, "public": public}
        if umpire is not None:
            body["umpire"] = umpire
        return self._json("POST", f"/games/{_quote(game_id)}/sandbox", body=body)

    def list_games(self, *, status: str | None = None, ruleset: str | None = None,
                   player: str | None = None, turn_of: str | None = None, sandbox: bool = False,
                   after: str | None = None, limit: int | None = None) -> dict:
        """One page of the list: {games, next_after} (``all_games`` follows every page)."""
        return self._json("GET", "/games", query={"status": status, "ruleset": ruleset,
                                                  "player": player, "turn_of": turn_of,
                                                  "sandbox": "true" if sandbox else None,
                                                  "after": after, "limit": limit})

    def all_games(self, **filters: Any) -> dict:
        """Every page of the list, as one: {games, next_after: None}. A game not listed yet whose
        activity moves it ahead of the cursor while the pages are read is on none of the pages
        after: the first page is read again once there were several, and a game it holds that was
        not listed goes first (the most recent activity)."""
        games: list[dict] = []
        after, seen = None, set()
        while True:
            page = self.list_games(**filters, after=after)
            if not isinstance(page, dict) or not isinstance(page.get("games"), list):
                return page  # not what the API promises: the caller says so
            games += page["games"]
            after = page.get("next_after")
            if not isinstance(after, str) or not after or after in seen:  # the end, or a server going round
                break
            seen.add(after)
        if seen:
            first = self.list_games(**filters)
            listed = {g.get("game_id") for g in games if isinstance(g, dict)}
            if isinstance(first, dict) and isinstance(first.get("games"), list):
                games = [g for g in first["games"] if isinstance(g, dict) and g.get("game_id") not in listed] + games
        return {**page, "games": games, "next_after": None}

    def server_key(self) -> dict:
        """The server's public key, which signs the heads it hands back: {algorithm, public_key}."""
        return self._json("GET", "/server-key")

    def game(self, game_id: str) -> dict:
        return self._json("GET", f"/games/{_quote(game_id)}")

    def join(self, game_id: str, invite_code: str, handle: str, *, email: str | None = None,
             notify: bool | None = None, client_seed: str | None = None, public_key: str | None = None,
             join_key: str | None = None, signature: str | None = None) -> dict:
        """Join a seat. ``join_key`` is the join's Idempotency-Key (default: a fresh uuid4): the same
        join sent again with it after a lost answer gets the seat a fresh token (docs/api.md); a join
        that registered ``public_key`` is sent again with ``signature``, its key's
        (``signatures.sign_join_again``)."""
        body: dict[str, Any] = {"invite_code": invite_code, "handle": handle}
        if public_key is not None:
            body["public_key"] = public_key
        if email is not None:
            body["email"] = email
        if notify is not None:
            body["notify"] = notify
        if client_seed is not None:
            body["client_seed"] = client_seed
        headers = {"Idempotency-Key": join_key or str(uuid.uuid4())}
        if signature is not None:
            headers["Warlog-Signature"] = signature
        return self._json("POST", f"/games/{_quote(game_id)}/join", body=body, headers=headers)

    def rotate_seat_token(self, game_id: str, request_id: str, *, signature: str | None = None,
                          head: str | None = None) -> dict:
        """Replace this client's seat token (it is revoked): ``request_id`` is the Idempotency-Key;
        the same request sent again with it after a lost answer gets the same new token."""
        return self._json("POST", f"/games/{_quote(game_id)}/seat-token",
                          headers={"Idempotency-Key": request_id, **_signed_headers(signature, head)})

    def umpire_token(self, game_id: str) -> dict:
        """Needs the game's admin token, and an umpire the game's log appoints."""
        return self._json("POST", f"/games/{_quote(game_id)}/umpire-tokens")

    def spectator_token(self, game_id: str, name: str) -> dict:
        """Needs the game's admin token: a named spectator token (reads; annotates after the end)."""
        return self._json("POST", f"/games/{_quote(game_id)}/spectator-tokens", body={"name": name})

    def spectator_tokens(self, game_id: str) -> dict:
        """Needs the game's admin token: the spectator tokens, live and revoked (never the secrets)."""
        return self._json("GET", f"/games/{_quote(game_id)}/spectator-tokens")

    def revoke_spectator_token(self, game_id: str, token_id: str) -> dict:
        return self._json("DELETE", f"/games/{_quote(game_id)}/spectator-tokens/{_quote(token_id)}")

    def revoke_spectator_name(self, game_id: str, name: str) -> dict:
        """Every spectator token issued under ``name`` stops working."""
        return self._json("DELETE", f"/games/{_quote(game_id)}/spectator-tokens", query={"name": name})

    def annotate(self, game_id: str, about_seq: int, text: str, *, private: bool = False,
                 annotation_id: str | None = None, signature: str | None = None, head: str | None = None) -> dict:
        """Annotate event ``about_seq``. ``annotation_id`` is the Idempotency-Key (default: a fresh
        uuid4): the same id and annotation again records nothing and returns the first result."""
        headers = {"Idempotency-Key": annotation_id or str(uuid.uuid4()), **_signed_headers(signature, head)}
        return self._json("POST", f"/games/{_quote(game_id)}/annotations",
                          body={"about_seq": about_seq, "text": text, "private": private}, headers=headers)

    def propose_umpire(self, game_id: str, umpire: str) -> dict:
        """Needs the game's admin token; every seat then accepts (``answer_umpire``)."""
        return self._json("POST", f"/games/{_quote(game_id)}/umpire", body={"umpire": umpire})

    # ``signature`` and ``head`` of a seat's commands below: a keyed seat's signature of the command over
    # the head it saw (format 2; docs/api.md, "Signed orders and signed heads").
    def answer_umpire(self, game_id: str, accept: bool, *, signature: str | None = None,
                      head: str | None = None) -> dict:
        return self._json("POST", f"/games/{_quote(game_id)}/umpire/answer", body={"accept": bool(accept)},
                          headers=_signed_headers(signature, head))

    def set_webhook(self, game_id: str, url: str | None, *, secret: str | None = None,
                    fmt: str | None = None) -> dict:
        """Needs the game's admin token; ``url`` None removes the webhook. Without ``secret`` the
        server makes one and returns it once; ``fmt``: warlog (the default), discord or slack."""
        body: dict[str, Any] = {"url": url}
        if secret is not None:
            body["secret"] = secret
        if fmt is not None:
            body["format"] = fmt
        return self._json("PUT", f"/games/{_quote(game_id)}/webhook", body=body)

    def umpire_tokens(self, game_id: str) -> dict:
        """Needs the game's admin token: the umpire tokens, live and revoked (never the secrets)."""
        return self._json("GET", f"/games/{_quote(game_id)}/umpire-tokens")

    def revoke_umpire_token(self, game_id: str, token_id: str) -> dict:
        return self._json("DELETE", f"/games/{_quote(game_id)}/umpire-tokens/{_quote(token_id)}")

    def revoke_umpire(self, game_id: str) -> dict:
        """End the umpire's role: recorded in the log; every umpire token stops working."""
        return self._json("DELETE", f"/games/{_quote(game_id)}/umpire")

    def set_client_seed(self, game_id: str, client_seed: str, *, signature: str | None = None,
                        head: str | None = None) -> dict:
        return self._json("PUT", f"/games/{_quote(game_id)}/client-seed", body={"client_seed": client_seed},
                          headers=_signed_headers(signature, head))

    # ---------------------------------------------------------------------------- orders --
    def submit_order(self, game_id: str, order: dict, *, order_id: str | None = None,
                     if_match: int | None = None, signature: str | None = None, head: str | None = None) -> dict:
        """Record one order. ``order_id`` is the Idempotency-Key (default: a fresh uuid4): sending
        the same order with the same id again returns the first result, with ``replayed`` true.
        Keep it until an order is accepted under it and send a refused order's next attempt under
        it too: the order's dice depend on it (docs/dice.md, "Retries keep their id").
        ``signature`` and ``head``: a keyed seat's signature of the order over the head it saw."""
        headers = {"Idempotency-Key": order_id or str(uuid.uuid4()), **_signed_headers(signature, head)}
        if if_match is not None:
            headers["If-Match"] = f'"{int(if_match)}"'
        return self._json("POST", f"/games/{_quote(game_id)}/orders", body=order, headers=headers)

    def seal(self, game_id: str, commitment: str, *, signature: str | None = None, head: str | None = None) -> dict:
        """Commit to the seat's orders of the open sealed round (docs/api.md, "Sealed orders");
        ``signature`` and ``head``: a keyed seat's signature of the seal over the head it saw."""
        return self._json("POST", f"/games/{_quote(game_id)}/sealed", body={"commitment": commitment},
                          headers=_signed_headers(signature, head))

    def reveal(self, game_id: str, orders: list, salt: str, *, signature: str | None = None,
               head: str | None = None) -> dict:
        """Reveal the seat's sealed orders and salt; checked by the server against the commitment.
        ``signature`` and ``head``: a keyed seat's signature of the reveal over the head it saw."""
        return self._json("POST", f"/games/{_quote(game_id)}/sealed/reveal", body={"orders": orders, "salt": salt},
                          headers=_signed_headers(signature, head))

    def legal_orders(self, game_id: str) -> dict:
        return self._json("GET", f"/games/{_quote(game_id)}/legal-orders")

    def request_take_back(self, game_id: str, reason: str = "", *, signature: str | None = None,
                          head: str | None = None) -> dict:
        return self._json("POST", f"/games/{_quote(game_id)}/take-backs", body={"reason": reason},
                          headers=_signed_headers(signature, head))

    def answer_take_back(self, game_id: str, accept: bool, *, signature: str | None = None,
                         head: str | None = None) -> dict:
        return self._json("POST", f"/games/{_quote(game_id)}/take-backs/answer", body={"accept": bool(accept)},
                          headers=_signed_headers(signature, head))

    def concede(self, game_id: str, *, signature: str | None = None, head: str | None = None) -> dict:
        return self._json("POST", f"/games/{_quote(game_id)}/concede", headers=_signed_headers(signature, head))

    def notifications(self, game_id: str) -> dict:
        return self._json("GET", f"/games/{_quote(game_id)}/notifications")

    def set_notifications(self, game_id: str, settings: dict, *, signature: str | None = None,
                          head: str | None = None) -> dict:
        """PUT the seat's notification settings: the fields given change, the others stay. A keyed
        seat signs them (kind "notifications", ``settings`` the body)."""
        return self._json("PUT", f"/games/{_quote(game_id)}/notifications", body=settings,
                          headers=_signed_headers(signature, head))

    def take_vacation(self, game_id: str, days: int, *, signature: str | None = None, head: str | None = None,
                      command_id: str | None = None) -> dict:
        """Announce a vacation. ``command_id`` is its Idempotency-Key (default: a fresh uuid4), so
        a retry after a lost answer records it once."""
        headers = {"Idempotency-Key": command_id or str(uuid.uuid4()), **_signed_headers(signature, head)}
        return self._json("POST", f"/games/{_quote(game_id)}/vacation", body={"days": days}, headers=headers)

    def grant_extension(self, game_id: str, days: int, *, signature: str | None = None,
                        head: str | None = None, command_id: str | None = None) -> dict:
        """Give the seats to move more days; ``command_id`` as ``take_vacation``'s."""
        headers = {"Idempotency-Key": command_id or str(uuid.uuid4()), **_signed_headers(signature, head)}
        return self._json("POST", f"/games/{_quote(game_id)}/extension", body={"days": days}, headers=headers)

    def claim_win(self, game_id: str, *, signature: str | None = None, head: str | None = None) -> dict:
        return self._json("POST", f"/games/{_quote(game_id)}/claim-win", headers=_signed_headers(signature, head))

    def standing_orders(self, game_id: str) -> dict:
        return self._json("GET", f"/games/{_quote(game_id)}/standing-orders")

    def set_standing_order(self, game_id: str, policy_id: str, decision_kind: str, policy: Any, *,
                           signature: str | None = None, head: str | None = None) -> dict:
        return self._json("PUT", f"/games/{_quote(game_id)}/standing-orders/{_quote(policy_id)}",
                          body={"decision_kind": decision_kind, "policy": policy},
                          headers=_signed_headers(signature, head))

    def cancel_standing_order(self, game_id: str, policy_id: str, *, signature: str | None = None,
                              head: str | None = None) -> dict:
        return self._json("DELETE", f"/games/{_quote(game_id)}/standing-orders/{_quote(policy_id)}",
                          headers=_signed_headers(signature, head))

    # ----------------------------------------------------------------------------- reads --
    def state(self, game_id: str, at: int | None = None, *, turn: int | None = None,
              phase: str | None = None) -> dict:
        """The state now, right after event ``at``, or at the start of ``turn`` (and ``phase``)."""
        return self._json("GET", f"/games/{_quote(game_id)}/state", query={"at": at, "turn": turn, "phase": phase})

    def vp(self, game_id: str) -> dict:
        return self._json("GET", f"/games/{_quote(game_id)}/vp")

    def events(self, game_id: str, after: int = 0, limit: int | None = None) -> dict:
        """One page of events after seq ``after``; ``next_after`` continues, null at the end."""
        return self._json("GET", f"/games/{_quote(game_id)}/events", query={"after": after, "limit": limit})

    def take_backs(self, game_id: str) -> dict:
        return self._json("GET", f"/games/{_quote(game_id)}/take-backs")

    def integrity(self, game_id: str) -> dict:
        return self._json("GET", f"/games/{_quote(game_id)}/integrity")

    def history(self, game_id: str) -> dict:
        return self._json("GET", f"/games/{_quote(game_id)}/history")

    def dice(self, game_id: str, *, seat: str | None = None, turn: int | None = None,
             purpose: str | None = None) -> dict:
        return self._json("GET", f"/games/{_quote(game_id)}/dice",
                          query={"seat": seat, "turn": turn, "purpose": purpose})

    # ------------------------------------------------------------------------------ jobs --
    def request_replay(self, game_id: str) -> dict:
        """Queue (or find) the replay of the game at its current version: 202 ``{job_id,
        status_url, result_url, version, audience}`` (docs/workers.md)."""
        return self._json("POST", f"/games/{_quote(game_id)}/replays")

    def request_statistics(self, game_id: str) -> dict:
        return self._json("POST", f"/games/{_quote(game_id)}/statistics")

    def job(self, job_id: str) -> dict:
        """``{id, kind, game_id, status, progress, error, retries_left, result_url}``."""
        return self._json("GET", f"/jobs/{_quote(job_id)}")

    def download(self, url: str, write, query: dict | None = None) -> int:
        """GET an artifact (``url``: a path on this server such as a job's ``result_url``) and
        hand its body to ``write`` in chunks; returns the bytes read."""
        path = urllib.parse.urlsplit(url).path
        prefix = urllib.parse.urlsplit(self.base_url).path
        if not path.startswith(prefix + "/"):
            raise ClientError(f"not a path of this server's API: {url!r}")
        size = 0
        with self._open("GET", path[len(prefix):], query=query, headers={"Accept": "*/*"}) as response:
            try:
                while chunk := response.read(65536):
                    write(chunk)
                    size += len(chunk)
            except (socket.timeout, TimeoutError, http.client.HTTPException, OSError) as exc:
                raise ConnectionFailed(f"the download from {self.base_url} broke off: {exc}") from None
        return size

    def export(self, game_id: str) -> Iterator[str]:
        """The game's export, one JSON line at a time (without the newline), read as it arrives."""
        response = self._open("GET", f"/games/{_quote(game_id)}/export",
                              headers={"Accept": "application/x-ndjson, application/problem+json"})
        with response:
            server_key = response.headers.get("Warlog-Server-Key")
            first = True
            try:
                for raw in _lines(response, f"{self.base_url} sent an export line"):
                    line = raw.decode("utf-8").rstrip("\r\n")
                    if first and server_key and not line.startswith('{"warlog_export"'):
                        # A format-1 game's export has no header line: the key that signs this
                        # game's heads comes as a response header, and heads the file (docs/dice.md).
                        from domain.verify import header_line

                        yield header_line(server_key)
                    first = False
                    if line:
                        yield line
            except (socket.timeout, TimeoutError):
                raise ConnectionFailed(f"{self.base_url} stopped sending the export") from None
            except (http.client.HTTPException, OSError) as exc:
                raise ConnectionFailed(f"the export from {self.base_url} broke off: {exc}") from None

    def stream(self, game_id: str, last_event_id: str | int | None = None, *, only_new: bool = False,
               reconnect: bool = True, retry_delay: float = 2.0, max_failures: int = 5,
               read_timeout: float | None = None, stop_on_end: bool = True) -> Iterator[StreamEvent]:
        """Follow the game's events as server-sent events, from after ``last_event_id`` (or from
        the first event; ``only_new``: from now on).

        When the server closes the stream (it does every few minutes) or it breaks off, reconnects
        with ``Last-Event-ID`` set to the last id seen, after the server's ``retry`` delay. Stops
        at the end of the game: after ``GameEnded`` and the events recorded with it (the dice
        epoch's reveal); returns quietly on KeyboardInterrupt; raises ConnectionFailed after
        ``max_failures`` failed connections in a row. A problem answer (bad token, unknown game)
        raises ProblemError at once, except ``stream_capacity`` (503) and ``too_many_streams``
        (429, a rate limit), which are retried after their Retry-After."""
        path = f"/games/{_quote(game_id)}/events/stream"
        last_id = None if last_event_id is None else str(last_event_id)
        delay = retry_delay
        failures = 0
        read_timeout = read_timeout or max(self.timeout, 60.0)  # heartbeats come every 15 s
        end_version: int | None = None  # once GameEnded is seen: the game's final version
        try:
            if stop_on_end and last_id is not None and last_id.isascii() and last_id.isdigit():
                final = self._final_version(game_id)
                if final is not None and int(last_id) >= final:
                    return  # nothing will ever come after this id
            while True:
                headers = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
                query = None
                if last_id is not None:
                    headers["Last-Event-ID"] = last_id
                elif only_new:
                    query = {"after": "latest"}
                got_any = False
                try:
                    response = self._open("GET", path, headers=headers, query=query, timeout=read_timeout)
                except ProblemError as exc:
                    if exc.code != "stream_capacity" and exc.status not in (503, 429):
                        raise
                    failures += 1
                    if failures >= max_failures or not reconnect:
                        raise
                    time.sleep(_retry_after(exc.headers.get("Retry-After"), delay))
                    continue
                except ConnectionFailed:
                    failures += 1
                    if failures >= max_failures or not reconnect:
                        raise
                    time.sleep(delay)
                    continue
                with response:
                    try:
                        for item in _parse_sse(_lines(response, f"{self.base_url} sent an event")):
                            if isinstance(item, int):  # a retry: field, in milliseconds
                                delay = min(item / 1000.0, MAX_WAIT)
                                continue
                            failures = 0
                            got_any = True
                            if item.id is not None:
                                last_id = item.id
                                if only_new:
                                    only_new = False
                            yield item
                            if stop_on_end and item.event == "GameEnded":
                                end_version = self._final_version(game_id) or item.seq or 0
                            if end_version is not None and (item.seq or 0) >= end_version:
                                return
                    except (socket.timeout, TimeoutError, http.client.HTTPException, OSError):
                        pass  # broke off: reconnect from the last id, as after a close
                if not reconnect:
                    return
                if not got_any:
                    # A close with nothing sent: stop if the game is over (nothing more will
                    # come); count it, so a server that keeps closing at once is not hammered.
                    if stop_on_end and self._final_version(game_id) is not None:
                        return
                    failures += 1
                    if failures >= max_failures:
                        raise ConnectionFailed(f"{self.base_url} keeps closing the event stream of game {game_id}")
                time.sleep(delay)
        except KeyboardInterrupt:
            return

    def _final_version(self, game_id: str) -> int | None:
        """The version of an ended game; None while it goes on (or when that cannot be told)."""
        try:
            summary = self.game(game_id)
        except ClientError:
            return None
        return int(summary.get("version") or 0) if summary.get("ended") else None

# --------------------------------------------------------------------------------- helpers --
class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """The API never redirects; following one would send the bearer token to wherever it points."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # the 3xx answer becomes an HTTPError, reported like any other refusal


def _read_safely(exc: urllib.error.HTTPError) -> bytes:
    try:
        return exc.read(MAX_PROBLEM)  # a longer one is no problem of warlog's: its status is said
    except Exception:  # a broken error body still gives a status
        return b""


def _problem(status: int, reason: str, headers: Any, raw: bytes) -> ProblemError:
    body: dict = {}
    try:
        decoded = json.loads(raw.decode("utf-8")) if raw else None
        if isinstance(decoded, dict):
            body = decoded
    except (UnicodeDecodeError, ValueError):
        pass
    headers = dict(headers.items()) if headers is not None else {}
    if "detail" in body or "code" in body:
        detail = str(body.get("detail") or body.get("title") or reason or f"HTTP {status}")
        return ProblemError(status, body.get("code"), detail, body.get("rule"), body, headers)
    # Not a problem document (a proxy's error page, a server from elsewhere): still no traceback.
    snippet = raw.decode("utf-8", "replace").strip().splitlines()[0][:120] if raw.strip() else ""
    detail = f"HTTP {status} {reason or ''}".strip() + (f": {snippet}" if snippet else "")
    return ProblemError(status, f"http_{status}", detail, None, body, headers)


def _retry_after(value: Any, default: float) -> float:
    try:
        return max(0.0, min(float(value), MAX_WAIT))
    except (TypeError, ValueError):
        return default


def _lines(response: Any, what: str) -> Iterator[bytes]:
    """The byte lines of ``response``, each at most ``MAX_LINE`` bytes: ConnectionFailed (naming
    ``what`` was too long) for a longer one, which no warlog server sends."""
    while raw := response.readline(MAX_LINE + 1):
        if len(raw) > MAX_LINE:
            raise ConnectionFailed(f"{what} of more than {MAX_LINE // 2**20} MiB: no warlog server sends one")
        yield raw


def _parse_sse(lines: Any) -> Iterator[StreamEvent | int]:
    """Server-sent events from an iterable of byte lines (the WHATWG event-stream format).

    Yields a StreamEvent per dispatched event and an int (milliseconds) per ``retry:`` field;
    comments (heartbeats) are skipped, an event without data is not dispatched."""
    data: list[str] = []
    size = 0  # of the data lines of the event being read, each at most MAX_LINE: so is the whole
    event = ""
    event_id: str | None = None
    for raw in lines:
        line = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        line = line.rstrip("\r\n")
        if line == "":
            if data:
                text = "\n".join(data)
                try:
                    decoded: Any = json.loads(text)
                except ValueError:
                    decoded = text
                yield StreamEvent(event_id, event or "message", decoded, text)
            data, event, size = [], "", 0
            continue
        if line.startswith(":"):
            continue
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            size += len(value) + 1
            if size > MAX_LINE:
                raise ConnectionFailed(f"the event stream sent an event of more than {MAX_LINE // 2**20} MiB: "
                                       "no warlog server sends one")
            data.append(value)
        elif name == "event":
            event = value
        elif name == "id":
            if "\0" not in value:
                event_id = value
        elif name == "retry":
            if value.isascii() and value.isdigit():
                yield int(value)


__all__ = ["WarlogClient", "ProblemError", "ConnectionFailed", "ClientError", "StreamEvent", "api_base"]
