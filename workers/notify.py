"""Turn notifications: who is told, what they are told, and how (SMTP, a Standard Webhooks POST).

The deciding and the building are pure functions of export lines, so tests call them directly;
``send_email`` and ``post_webhook`` are the only parts that talk to the network, always with a
timeout. Nothing here logs an address's password, a webhook secret or a signature.

Who is told, after one command (an order, a join, a take-back request or answer, a concession):

- every seat that is to move after it and was not before (``Game.whose_move``; this includes the
  opponent of a take-back request and the first seats to move when the last seat joins);
- the seat a ``DecisionPending`` of the command waits for;
- in a ruleset that does not sequence the seats (every seat may act at any time, as in
  freeform), ``whose_move`` never changes, so a phase or turn advance is the hand-over: the
  other seats are told;
- when the game ends, every seat but the one whose command ended it;
- the seats a ``DeadlineReminder`` names (their deadline is near), and, at a ``TimedOut`` that
  lets the opponent claim, the other seats (workers/clock.py records both; domain/clock.py).

What they are told: the events since the seat last acted (or was last told), each as its
readable line (projections/narrate.describe) *as that seat may see it*
(domain/visibility.filter_lines: a private note of the opponent is "Blue gives an order (hidden)", never its
text), the dice among them, the chain head after the command, a link to the game and a link
that opens the replay at the seat's last order (``replay_link``), so the reader steps through what
happened since.

A seat's address is mailed only once its owner confirmed it (domain/access; until then it gets
nothing but ``confirmation_email``, which holds no text the seats typed).

Each seat chooses (``Prefs``, kept beside the log by workers/dispatch.NotifyStore, never in it):
which reasons notify it, by mail, by its own webhook (in one of the ``FORMATS``) or both, and a
daily digest instead of one mail per event. Without a choice a seat is mailed for every reason, as before the choices existed.
"""

from __future__ import annotations

import base64
import binascii
import http.client
import json
import os
import smtplib
import ssl
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.message import EmailMessage
from typing import Mapping

from standardwebhooks import Webhook

from domain.events import COMMAND_TYPES
from domain.storage import seconds_from_env, whole_from_env, whole_list_from_env
from domain.visibility import filter_lines
from projections.narrate import describe
from workers import webhook_target

# Events that begin a command: everything after one, up to the next, was recorded by that command.
COMMAND_HEADS = COMMAND_TYPES | {"GameCreated", "OrderAccepted"}
HAND_OVER = frozenset({"PhaseAdvanced", "TurnAdvanced"})
WINDOW = 200  # at most this many events in one message; older ones are behind the link

# Standard Webhooks (https://www.standardwebhooks.com): the id stays the same on every retry of a
# delivery, the timestamp is the attempt's, the signature is "v1,<base64 HMAC-SHA256 of id.timestamp.body>".
ID_HEADER = "webhook-id"
TIMESTAMP_HEADER = "webhook-timestamp"
SIGNATURE_HEADER = "webhook-signature"
SECRET_PREFIX = "whsec_"
SECRET_BYTES = (24, 64)  # the spec's bounds on a secret's key

# The body a webhook gets (the game's, or a seat's own): warlog's own JSON, or a chat message
# Discord or Slack posts as it is.
FORMATS = ("warlog", "discord", "slack")
DEFAULT_FORMAT = "warlog"
CHAT_LIMIT = {"discord": 2000, "slack": 3000}  # characters of one message (Discord refuses more than 2000)
CHAT_EVENTS = 10  # at most this many of the latest events in a chat message; the rest are behind the link

# What a seat may choose to be told about, and the reasons each choice covers: a hand-over is the
# "your move" of a ruleset where every seat may act at any time.
CHOICES = ("your_move", "decision", "take_back", "game_over")
# A deadline near is about the seat's move; an opponent's timeout, about how the game may end.
CHOICE_OF = {"your_move": "your_move", "hand_over": "your_move", "reminder": "your_move", "decision": "decision",
             "take_back": "take_back", "game_over": "game_over", "timeout": "game_over"}
CHANNELS = ("email", "webhook")


# ================================================================================ deciding ====
@dataclass(frozen=True)
class Command:
    first: int
    last: int
    seat: str | None  # who gave it (None for GameCreated)
    lines: tuple


def commands(lines: list[dict]) -> list[Command]:
    """Split consecutive export lines into the commands that recorded them. Lines before the
    first command head (a batch that starts mid-command) form a command of unknown seat."""
    out: list[Command] = []
    current: list[dict] = []
    for line in lines:
        if line["type"] in COMMAND_HEADS and current:
            out.append(_command(current))
            current = []
        current.append(line)
    if current:
        out.append(_command(current))
    return out


def _command(lines: list[dict]) -> Command:
    head = lines[0]
    seat = head["data"].get("seat") if head["type"] in COMMAND_HEADS else None
    return Command(lines[0]["seq"], lines[-1]["seq"], seat, tuple(lines))


def recipients(command: Command, human_seats: list[str], before: list[str], after: list[str]) -> dict[str, str]:
    """{seat: reason} of the seats to tell after ``command``; ``before`` and ``after`` are
    whose_move before and after it."""
    out: dict[str, str] = {}
    head = command.lines[0]["type"] if command.lines else None
    for seat in after:
        if seat not in before and seat in human_seats:
            out[seat] = "take_back" if head == "TakeBackRequested" else "your_move"
    if head == "DeadlineReminder":  # time control: a new reason to tell a seat (domain/clock.py TC 2)
        for seat in command.lines[0]["data"].get("seats") or []:
            if seat in human_seats:
                out[seat] = "reminder"
    elif head == "TimedOut" and command.lines[0]["data"].get("on_timeout") == "claim":
        late = command.lines[0]["data"].get("seats") or []
        for seat in human_seats:
            if seat not in late:
                out[seat] = "timeout"
    if any(line["type"] == "GameEnded" for line in command.lines):
        for seat in human_seats:
            if seat != command.seat:
                out[seat] = "game_over"
        return out
    # A decision a standing order answered within the same command waits for nobody.
    answered = {line["data"].get("decision_id") for line in command.lines if line["type"] == "StandingOrderUsed"}
    for line in command.lines:
        if line["type"] == "DecisionPending":
            decision = line["data"].get("decision") or {}
            seat = decision.get("seat")
            if seat in human_seats and seat != command.seat and decision.get("id") not in answered:
                out[seat] = "decision"
    unsequenced = bool(after) and set(after) >= set(human_seats)
    if unsequenced and any(line["type"] in HAND_OVER for line in command.lines):
        for seat in human_seats:
            if seat != command.seat:
                out.setdefault(seat, "hand_over")
    return out


def since_last_acted(lines: list[dict], seat: str, after: int = 0) -> list[dict]:
    """The lines after the seat's own last command and what it recorded (and after seq
    ``after``): what the others did since the seat last acted or was last told."""
    start = 0
    for command in commands(lines):
        if command.seat == seat:
            start = command.last
    return [line for line in lines if line["seq"] > max(start, after)]


@dataclass(frozen=True)
class Prefs:
    """A seat's notification choices; the defaults are the behaviour before there were any."""

    events: frozenset = frozenset(CHOICES)
    channels: frozenset = frozenset({"email"})
    digest: bool = False
    webhook_url: str | None = None
    webhook_format: str = DEFAULT_FORMAT  # one of FORMATS, as the game's webhook has

    def wants(self, reason: str) -> bool:
        return CHOICE_OF.get(reason, reason) in self.events


def last_commands(lines: list[dict], seats) -> dict[str, int]:
    """{seat: the last event of the last command it gave in ``lines``, 0 when none is there}."""
    last = {seat: 0 for seat in seats}
    for command in commands(lines):
        if command.seat in last:
            last[command.seat] = command.last
    return last


def last_acted(lines: list[dict], seats) -> int:
    """Where a seat's replay link starts: the last event of the last command one of ``seats``
    gave in ``lines`` (the log up to now), the earliest over the seats; 0 when one never acted."""
    return min(last_commands(lines, seats).values(), default=0)


def replay_link(public_url: str, game_id: str, start: int) -> str:
    """The replay page opened at event ``start`` (docs/pages.md: ``?from=SEQ``)."""
    return f"{public_url.rstrip('/')}/games/{game_id}/replay?from={int(start)}"


# ================================================================================ building ====
@dataclass
class Summary:
    """What one notification says, already filtered for its reader."""

    game_id: str
    seq: int
    viewer: str | None
    reason: str
    to_move: list[str]
    chain_head: str
    url: str
    turn: object = None
    phase: object = None
    events: list[dict] = field(default_factory=list)  # {seq, type, text}
    dice: list[dict] = field(default_factory=list)  # {seq, text}
    earlier: int = 0  # events before the window, not in the message
    replay_url: str = ""  # the replay at the reader's last order
    news: list[dict] = field(default_factory=list)  # a digest's {seq, reason}: what called for the reader

    def as_json(self) -> dict:
        return {"game_id": self.game_id, "seq": self.seq, "reason": self.reason, "to_move": self.to_move,
                "turn": self.turn, "phase": self.phase, "chain_head": self.chain_head, "url": self.url,
                "replay_url": self.replay_url, "events": self.events, "dice": self.dice,
                "earlier_events": self.earlier}


REASONS = {
    "your_move": "It is your move",
    "decision": "A decision is waiting for you",
    "hand_over": "The phase has moved on",
    "take_back": "Your opponent asks to take back an order",
    "game_over": "The game is over",
    "digest": "Your daily digest",
    "reminder": "Your deadline is near",
    "timeout": "Your opponent let the deadline pass: you may claim the win",
}


def build_summary(rules, game_id: str, lines: list[dict], *, viewer: str | None, reason: str,
                  to_move: list[str], chain_head: str, seq: int, public_url: str,
                  turn: object = None, phase: object = None, earlier: int = 0, start: int = 0,
                  news: list[dict] | None = None) -> Summary:
    """The notification for ``viewer`` (a seat, or None for the public webhook) about ``lines``.
    Only what ``viewer`` may see gets in: lines pass filter_lines before they are described.
    ``start``: the seq the replay link opens at (the reader's last order)."""
    shown = filter_lines(rules, lines, viewer)
    events = [{"seq": line["seq"], "type": line["type"], "text": describe(line, rules)} for line in shown]
    dice = [{"seq": e["seq"], "text": e["text"]} for e in events if e["type"] in ("DiceRolled", "SealedDiceRolled")]
    url = f"{public_url.rstrip('/')}/api/v1/games/{game_id}"
    return Summary(game_id, seq, viewer, reason, list(to_move), chain_head, url, turn, phase, events, dice, earlier,
                   replay_link(public_url, game_id, start), list(news or []))


def email_text(summary: Summary, handle: str | None = None) -> tuple[str, str]:
    """(subject, body) of the mail to ``summary.viewer``."""
    headline = REASONS.get(summary.reason, "News from your game")
    where = ""
    if summary.turn is not None:
        where = f" (turn {summary.turn}" + (f", {summary.phase}" if summary.phase else "") + ")"
    subject = f"[warlog] {headline}{where} — game {summary.game_id[:8]}"
    body = [f"{'Hello ' + handle + ',' if handle else 'Hello,'}", "",
            f"{headline} as {summary.viewer} in game {summary.game_id}{where}.",
            f"To move: {', '.join(summary.to_move) or 'nobody'}.", ""]
    if summary.news:
        body.append("What called for you since the last digest:")
        body += [f"  #{n['seq']} {REASONS.get(n['reason'], n['reason'])}" for n in summary.news]
        body.append("")
    if summary.events:
        body.append("What happened since you last acted:")
        if summary.earlier:
            body.append(f"  ({summary.earlier} earlier event(s): see the game)")
        body += [f"  #{e['seq']} {e['text']}" for e in summary.events]
        body.append("")
    if summary.dice:
        body.append("The dice:")
        body += [f"  #{d['seq']} {d['text']}" for d in summary.dice]
        body.append("")
    body += [f"Chain head after event #{summary.seq}: {summary.chain_head}",
             "(compare it with your own copy of the log: the same head means the same history)", "",
             f"Step through it from your last order: {summary.replay_url}",
             f"The game: {summary.url}", "",
             "You get this mail because your seat asked for turn notifications; "
             "PUT /api/v1/games/{id}/notifications (or 'warlog notify') with {\"notify\": false} stops them, "
             "\"events\" chooses which, \"digest\": true makes them one mail a day."]
    return subject, "\n".join(body) + "\n"


def build_email(summary: Summary, to: str, sender: str, handle: str | None = None,
                message_id: str | None = None) -> EmailMessage:
    subject, text = email_text(summary, handle)
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    if message_id:
        msg["Message-ID"] = message_id
    msg["X-Warlog-Game"] = summary.game_id
    msg["X-Warlog-Seq"] = str(summary.seq)
    msg.set_content(text)
    return msg


def confirmation_link(public_url: str, secret: str) -> str:
    """The page that confirms an address (api/pages.confirm_email_page): it asks for one press of a
    button, so a mail scanner that opens links confirms nothing."""
    return f"{public_url.rstrip('/')}/confirm-email?code={secret}"


def confirmation_email(to: str, sender: str, link: str, hours: int, message_id: str | None = None) -> EmailMessage:
    """The one mail an address gets before it is confirmed. Nothing in it was typed by whoever
    gave the address (no game name, seat, handle or note): only warlog's words and the link."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = "[warlog] Confirm this address for turn notifications"
    if message_id:
        msg["Message-ID"] = message_id
    msg.set_content("\n".join([
        "Hello,", "",
        "Someone asked a warlog server to send turn notifications of a game to this address.",
        f"If it was you, open this link within {hours} hours and press Confirm:", "", f"  {link}", "",
        "If it was not you, ignore this mail: this address gets no other mail from warlog",
        "unless the link is followed.", ""]))
    return msg


def webhook_body(summary: Summary, fmt: str = DEFAULT_FORMAT, game: str | None = None) -> bytes:
    """The POST body in the webhook's ``fmt``; ``game`` names the game in a chat message
    (``game_name``). Everything in it comes from ``summary``, already filtered for its reader
    (the public for the game's webhook, the seat for a seat's own)."""
    if fmt == "warlog":
        payload: dict = {"event": "turn", **summary.as_json()}
    elif fmt == "discord":
        # No mention in an event's text (a note's "@everyone") may ping anybody.
        payload = {"content": chat_text(summary, game, CHAT_LIMIT["discord"]), "allowed_mentions": {"parse": []}}
    elif fmt == "slack":
        payload = {"text": chat_text(summary, game, CHAT_LIMIT["slack"], escape=_slack_escape)}
    else:
        raise ValueError(f"unknown webhook format {fmt!r} (one of {', '.join(FORMATS)})")
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()


def game_name(rules, game_id: str) -> str:
    """How a chat message names a game: its ruleset's short title and the id's first 8 characters."""
    return f"{(rules.title or rules.name).split(':')[0].strip()} {game_id[:8]}"


def game_page(summary: Summary) -> str:
    """The game's page (pages.game_page), beside ``summary.url``, its API resource."""
    return summary.url.removesuffix(f"/api/v1/games/{summary.game_id}") + f"/games/{summary.game_id}"


def chat_text(summary: Summary, game: str | None, limit: int, escape=lambda text: text) -> str:
    """One chat message: the game, who is to move (or that it is over), the latest events, the
    links (the replay from the last order, the game's page); event lines are dropped, oldest
    first, until it fits in ``limit`` characters."""
    where = game or f"game {summary.game_id[:8]}"
    if summary.turn is not None:
        where += f" (turn {summary.turn}" + (f", {summary.phase}" if summary.phase else "") + ")"
    if "game_over" in summary.reason.split(","):  # a webhook's reason: every told seat's, comma-separated
        headline = escape(f"{where}: the game is over.")
    else:
        headline = escape(f"{where}: {', '.join(summary.to_move) or 'nobody'} to move.")
    # The replay from the last order of the seats to move (docs/pages.md, "?from="), then the game's page.
    link = "\n".join(([f"Replay from the last order: {summary.replay_url}"] if summary.replay_url else [])
                     + [game_page(summary)])
    events = [escape(f"#{e['seq']} {e['text']}") for e in summary.events[-CHAT_EVENTS:]]
    while events and len("\n".join([headline, *events, link])) > limit:
        events.pop(0)
    text = "\n".join([headline, *events, link])
    if len(text) > limit:  # the headline alone is too long: cut it, keep the link whole
        text = headline[:limit - len(link) - 2] + "…\n" + link
    return text


def _slack_escape(text: str) -> str:
    # Slack reads <...> as links and mentions (<!channel>): the three characters it asks to escape.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# ============================================================================== signatures ====
def secret_problem(secret: str | None) -> str | None:
    """Why ``secret`` is not a Standard Webhooks secret ("whsec_" and the base64 of 24 to 64
    bytes), or None when it is one."""
    if not secret or not secret.startswith(SECRET_PREFIX):
        return f"a Standard Webhooks secret starts with {SECRET_PREFIX!r}"
    encoded = secret[len(SECRET_PREFIX):]
    try:
        key = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
    except (binascii.Error, ValueError):
        return f"what follows {SECRET_PREFIX!r} is standard base64 (A-Z, a-z, 0-9, '+', '/')"
    low, high = SECRET_BYTES
    if not low <= len(key) <= high:
        return f"the secret's key is {low} to {high} bytes (base64 of {len(key)} given)"
    return None


def new_secret() -> str:
    """A fresh secret: "whsec_" and the base64 of 32 random bytes."""
    return SECRET_PREFIX + base64.b64encode(os.urandom(32)).decode()


def signed_headers(secret: str, msg_id: str, body: bytes, now: float | None = None) -> dict[str, str]:
    """The three Standard Webhooks headers of one attempt, signed by the ``standardwebhooks`` library."""
    at = datetime.fromtimestamp(int(now if now is not None else time.time()), tz=timezone.utc)
    signature = Webhook(secret).sign(msg_id, at, body.decode())
    return {ID_HEADER: msg_id, TIMESTAMP_HEADER: str(int(at.timestamp())), SIGNATURE_HEADER: signature}


# ================================================================================= sending ====
@dataclass(frozen=True)
class SmtpSettings:
    host: str
    port: int = 25
    user: str | None = None
    password: str | None = None
    starttls: bool = False
    ssl: bool = False
    sender: str = "warlog@localhost"
    timeout: float = 10.0

    def __repr__(self) -> str:  # never the password
        return (f"SmtpSettings(host={self.host!r}, port={self.port}, user={self.user!r}, "
                f"starttls={self.starttls}, ssl={self.ssl}, sender={self.sender!r})")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "SmtpSettings | None":
        """None when WARLOG_SMTP_HOST is not set: no mail is sent then."""
        env = os.environ if env is None else env
        host = (env.get("WARLOG_SMTP_HOST") or "").strip()
        if not host:
            return None
        use_ssl = _flag(env.get("WARLOG_SMTP_SSL"))
        timeout = seconds_from_env("WARLOG_SMTP_TIMEOUT", 10.0, env, above_zero=True)
        return cls(host=host, port=whole_from_env("WARLOG_SMTP_PORT", 465 if use_ssl else 25, env, minimum=1),
                   user=env.get("WARLOG_SMTP_USER") or None, password=env.get("WARLOG_SMTP_PASSWORD") or None,
                   starttls=_flag(env.get("WARLOG_SMTP_STARTTLS")), ssl=use_ssl,
                   sender=env.get("WARLOG_SMTP_FROM") or "warlog@localhost",
                   timeout=timeout)


def _flag(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def send_email(settings: SmtpSettings, msg: EmailMessage) -> None:
    """One message over SMTP, with the configured timeout on connect and on every command."""
    context = ssl.create_default_context()
    if settings.ssl:
        client = smtplib.SMTP_SSL(settings.host, settings.port, timeout=settings.timeout, context=context)
    else:
        client = smtplib.SMTP(settings.host, settings.port, timeout=settings.timeout)
    with client:
        if settings.starttls and not settings.ssl:
            client.starttls(context=context)
        if settings.user:
            client.login(settings.user, settings.password or "")
        client.send_message(msg)


class WebhookFailed(Exception):
    """The receiver did not answer 2xx, or its target is refused (the job fails and is retried)."""


class _Pinned(http.client.HTTPConnection):
    """A connection to the address ``webhook_target.check`` approved, not to whatever the name
    resolves to by now; over https the host's name is still the TLS server name checked."""

    def __init__(self, target: webhook_target.Target, timeout: float):
        super().__init__(target.address, target.port, timeout=timeout)
        self.target = target

    def connect(self) -> None:
        super().connect()
        if self.target.scheme == "https":
            context = ssl.create_default_context()
            self.sock = context.wrap_socket(self.sock, server_hostname=self.target.host)


def post_webhook(url: str, secret: str, body: bytes, *, delivery: str, timeout: float = 5.0,
                 now: float | None = None, allow: webhook_target.Allow | None = None, own: str | None = None) -> int:
    """POST the body to ``url``, signed as Standard Webhooks says with ``delivery`` as its
    webhook-id (the same on every retry), once its target passes ``webhook_target.check``
    (checked again at every delivery); returns the status, raises WebhookFailed for anything but
    2xx. A redirect is not followed: it would send the signed body somewhere nobody checked."""
    try:
        target = webhook_target.check(url, allow, own)
    except webhook_target.Refused as exc:
        raise WebhookFailed(str(exc)) from None
    headers = {"Host": target.host_header, "Content-Type": "application/json", "User-Agent": "warlog-webhook/2",
               **signed_headers(secret, delivery, body, now)}
    connection = _Pinned(target, timeout)
    try:
        connection.request("POST", target.path, body=body, headers=headers)
        status = connection.getresponse().status
    except (OSError, http.client.HTTPException) as exc:
        raise WebhookFailed(f"webhook unreachable: {type(exc).__name__}: {exc}") from None
    finally:
        connection.close()
    if 300 <= status < 400:
        raise WebhookFailed(f"webhook answered {status}; redirects are not followed")
    if not 200 <= status < 300:
        raise WebhookFailed(f"webhook answered {status}")
    return status


def retry_intervals(env: Mapping[str, str] | None = None) -> list[int]:
    """Seconds between attempts (WARLOG_NOTIFY_RETRY_INTERVALS, comma-separated)."""
    env = os.environ if env is None else env
    if not (env.get("WARLOG_NOTIFY_RETRY_INTERVALS") or "").strip():
        return [30, 120, 600, 1800]
    return whole_list_from_env("WARLOG_NOTIFY_RETRY_INTERVALS", "", env)

