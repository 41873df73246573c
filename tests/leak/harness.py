"""The leak test's harness (issue 34, section 5): everything a reader can read of a game, searched
for what that reader has not been shown.

It knows nothing of how hidden information is hidden. Two kinds of secret are looked for, each in
every text a reader gets:

- **planted tokens**: unique random words the players put in hidden content (a private note, a
  face-down marker's name, a standing order's name, a sealed order), each with the seats that may
  read it (``Secret.known_to``; the umpire reads everything and is no reader here);
- **withheld values**: every opaque value (16 or more letters, digits, ``-`` and ``_``: salts,
  signatures, tokens, hashes) of the stored log that the reader's own export does not hold. What
  its export withholds, no other read may show: this finds what a read shows a reader without the
  filter every other read applies (a page that starts mid-order, a state that skips the view).

A secret is found when the whole value, or its first or last 12 characters, is in a text
(case-insensitive): a value cut short by a readable line is found too.
"""

from __future__ import annotations

import contextlib
import json
import re
import secrets as random_secrets
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

import pytest

API = "/api/v1"
TOKEN_PREFIX = "lk"  # tokens are "lk" and 32 hex digits: nothing a text escapes, nothing a game writes
OPAQUE = re.compile(r"[A-Za-z0-9_-]{16,}")
PIECE = 12  # a value cut short keeps at least this much of its start or its end


def new_token() -> str:
    return TOKEN_PREFIX + random_secrets.token_hex(16)


@dataclass(frozen=True)
class Reader:
    """Who reads: a seat (``viewer`` is its name), a spectator or the admin (``viewer`` None: public
    information only), with the headers it sends."""

    name: str
    viewer: str | None
    headers: dict = field(default_factory=dict, hash=False)


@dataclass
class Secret:
    value: str
    what: str
    known_to: set[str]  # the seats that may read it
    public_from: int | None = None  # the seq from which everyone may read it (a sealed order revealed)


@dataclass(frozen=True)
class Leak:
    game: str
    reader: str
    surface: str
    what: str
    value: str

    def __str__(self) -> str:
        return f"{self.game}: {self.reader} reads {self.what} ({self.value}) in {self.surface}"


class Secrets:
    """The planted tokens of one game and who may read each, as play goes on."""

    def __init__(self) -> None:
        self.items: dict[str, Secret] = {}

    def plant(self, what: str, known_to: Iterable[str]) -> str:
        token = new_token()
        self.items[token] = Secret(token, what, set(known_to))
        return token

    def disclose(self, token: str, at: int) -> None:
        """The token's content is public from event ``at`` on (a sealed order revealed)."""
        self.items[token].public_from = at

    def forget(self, token: str) -> None:
        """A token that never reached the log (its order was refused): no secret at all."""
        self.items.pop(token, None)

    def hidden_from(self, reader: Reader, at: int | None = None) -> list[Secret]:
        """The secrets ``reader`` may not read now, or (``at``) in what the game said as of event
        ``at`` (a notification sent about it)."""
        return [s for s in self.items.values() if reader.viewer not in s.known_to
                and (s.public_from is None or (at is not None and at < s.public_from))]


def pieces(value: str) -> tuple[str, ...]:
    low = value.lower()
    return (low, low[:PIECE], low[-PIECE:]) if len(low) >= 2 * PIECE else (low,)


def search(game: str, reader: Reader, texts: Iterable[tuple[str, str]], hidden: Iterable[Secret]) -> list[Leak]:
    """The leaks of ``hidden`` in ``texts`` ((surface, text) pairs), one per secret and surface."""
    hidden = list(hidden)
    found: dict[tuple[str, str], Leak] = {}
    for surface, text in texts:
        low = text.lower()
        for secret in hidden:
            if (surface, secret.value) not in found and any(p in low for p in pieces(secret.value)):
                found[(surface, secret.value)] = Leak(game, reader.name, surface, secret.what, secret.value)
    return list(found.values())


def seen_anywhere(texts: Iterable[tuple[str, str]], value: str) -> bool:
    return any(p in text.lower() for _, text in texts for p in pieces(value))


# ================================================================================ withheld ====
def _leaves(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """(path, string) of every string in ``value``, keys of objects included."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, list):
        for n, item in enumerate(value):
            yield from _leaves(item, f"{path}[{n}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield f"{path}.{key} (its key)", str(key)
            yield from _leaves(item, f"{path}.{key}")


def opaque(text: str) -> list[str]:
    """The opaque values in ``text``: runs of 16 or more letters, digits, ``-`` and ``_`` holding
    at least two letters and two digits (a salt, a signature, a token; not a word such as
    "opportunity_fire", which a ruleset's own listings name)."""
    return [v for v in OPAQUE.findall(text)
            if sum(c.isdigit() for c in v) >= 2 and sum(c.isalpha() for c in v) >= 2]


def opaque_values(line: dict) -> Iterator[tuple[str, str]]:
    """(where, value) of every opaque value in a line's data."""
    for path, text in _leaves(line.get("data"), "data"):
        for value in opaque(text):
            yield f"{line['type']} #{line['seq']} {path}", value


def withheld(stored: list[dict], export_text: str) -> list[Secret]:
    """The opaque values of the stored log that a reader's export (``export_text``, JSON Lines)
    does not hold."""
    held = {value for row in export_text.splitlines() if row.strip()
            for _, text in _leaves(json.loads(row), "") for value in opaque(text)}
    out: dict[str, Secret] = {}
    for line in stored:
        for where, value in opaque_values(line):
            if value not in held and value not in out:
                out[value] = Secret(value, f"a value its own export withholds ({where})", set())
    return list(out.values())


# ================================================================================ surfaces ====
class Texts:
    """What one reader read: (surface, text) pairs, and any answer that was a server error."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []
        self.errors: list[str] = []

    def add(self, surface: str, response) -> str:
        text = response.get_data(as_text=True)
        if response.status_code >= 500:
            self.errors.append(f"{surface}: {response.status_code} {text[:300]}")
        self.items.append((surface, text))
        return text

    def add_text(self, surface: str, text: str) -> None:
        self.items.append((surface, text))


def read_stream(client, url: str, headers: dict) -> str:
    response = client.get(url, headers=headers, buffered=False)
    try:
        # A refused stream (a rate limit's 429) shows nothing, so it would find no leak either.
        assert response.status_code == 200, f"{url}: {response.status_code} {response.get_data(as_text=True)}"
        return b"".join(response.response).decode()
    finally:
        response.close()


@contextlib.contextmanager
def small_pages() -> Iterator[None]:
    """The export and the stream read the log a page at a time (500 and 200 lines): here 2, so
    that a page may begin with any line, as a page of a long game does."""
    import api.reads
    import api.stream

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(api.reads, "EXPORT_PAGE", 2)
        patch.setattr(api.stream, "PAGE", 2)
        yield


def game_reads(client, game_id: str, reader: Reader, *, full: bool, page: int = 1,
               at: Iterable[int] = ()) -> Texts:
    """Every read of the game's API ``reader`` may make (``full``), or the main ones (a
    checkpoint during play): the summary, the games list, the state now and at ``at`` seqs and
    at turn 1, VP, history, dice audit, events whole and ``page`` at a time, export, take-backs,
    integrity, the replay frames, the live stream (and the export and the stream read 2 lines a
    page), and for a seat its legal orders and standing orders. The export comes first:
    ``withheld`` reads it."""
    base, h = f"{API}/games/{game_id}", reader.headers
    out = Texts()
    out.add("export", client.get(f"{base}/export", headers=h))
    for surface, path in [("summary", base), ("state", f"{base}/state"), ("history", f"{base}/history"),
                          ("events", f"{base}/events?limit=500"), ("dice audit", f"{base}/dice"),
                          ("games list", f"{API}/games?sandbox=true")]:
        out.add(surface, client.get(path, headers=h))
    if reader.viewer is not None:
        out.add("legal orders", client.get(f"{base}/legal-orders", headers=h))
        out.add("standing orders", client.get(f"{base}/standing-orders", headers=h))
    paged, after = [], 0
    while after is not None:
        r = client.get(f"{base}/events?after={after}&limit={page}", headers=h)
        paged.append(r.get_data(as_text=True))
        after = r.json.get("next_after") if r.status_code == 200 else None
    out.add_text(f"events, {page} at a time", "\n".join(paged))
    out.add_text("stream", read_stream(client, f"{base}/events/stream", h))
    if full:
        with small_pages():
            out.add("export, 2 lines a page", client.get(f"{base}/export", headers=h))
            out.add_text("stream, 2 lines a page", read_stream(client, f"{base}/events/stream", h))
        for seq in at:
            out.add(f"state at event {seq}", client.get(f"{base}/state?at={seq}", headers=h))
        for surface, path in [("state at turn 1", f"{base}/state?turn=1"), ("vp", f"{base}/vp"),
                              ("take-backs", f"{base}/take-backs"), ("integrity", f"{base}/integrity"),
                              ("replay frames", f"{base}/frames")]:
            out.add(surface, client.get(path, headers=h))
    return out


def artifact_reads(client, game_id: str, reader: Reader) -> Texts:
    """The artifacts the workers made, as ``reader`` gets them: the replay's frames (JSON) and its
    offline HTML file, and the game's statistics."""
    base, h = f"{API}/games/{game_id}", reader.headers
    out = Texts()
    out.add("replay (the worker's frames)", client.get(f"{base}/replays/latest?format=json", headers=h))
    out.add("replay (the offline HTML file)", client.get(f"{base}/replays/latest?format=html", headers=h))
    out.add("statistics", client.get(f"{base}/statistics", headers=h))
    return out


def as_json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
