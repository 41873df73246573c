"""Turn notifications: who is told, what they are told, and how (SMTP, signed webhook).

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
text), the dice among them, the chain head after the command and a link to the game.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import os
import smtplib
import ssl
import time
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Mapping

from domain.events import COMMAND_TYPES
from domain.visibility import filter_lines
from projections.narrate import describe
from workers import webhook_target

# Events that begin a command: everything after one, up to the next, was recorded by that command.
COMMAND_HEADS = COMMAND_TYPES | {"GameCreated", "OrderAccepted"}
HAND_OVER = frozenset({"PhaseAdvanced", "TurnAdvanced"})
WINDOW = 200  # at most this many events in one message; older ones are behind the link

SIGNATURE_HEADER = "X-Warlog-Signature"
TIMESTAMP_HEADER = "X-Warlog-Timestamp"
DELIVERY_HEADER = "X-Warlog-Delivery"


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

    def as_json(self) -> dict:
        return {"game_id": self.game_id, "seq": self.seq, "reason": self.reason, "to_move": self.to_move,
                "turn": self.turn, "phase": self.phase, "chain_head": self.chain_head, "url": self.url,
                "events": self.events, "dice": self.dice, "earlier_events": self.earlier}


REASONS = {
    "your_move": "It is your move",
    "decision": "A decision is waiting for you",
    "hand_over": "The phase has moved on",
    "take_back": "Your opponent asks to take back an order",
    "game_over": "The game is over",
    "reminder": "Your deadline is near",
    "timeout": "Your opponent let the deadline pass: you may claim the win",
}


def build_summary(rules, game_id: str, lines: list[dict], *, viewer: str | None, reason: str,
                  to_move: list[str], chain_head: str, seq: int, public_url: str,
                  turn: object = None, phase: object = None, earlier: int = 0) -> Summary:
    """The notification for ``viewer`` (a seat, or None for the public webhook) about ``lines``.
    Only what ``viewer`` may see gets in: lines pass filter_lines before they are described."""
    shown = filter_lines(rules, lines, viewer)
    events = [{"seq": line["seq"], "type": line["type"], "text": describe(line, rules)} for line in shown]
    dice = [{"seq": e["seq"], "text": e["text"]} for e in events if e["type"] in ("DiceRolled", "SealedDiceRolled")]
    url = f"{public_url.rstrip('/')}/api/v1/games/{game_id}"
    return Summary(game_id, seq, viewer, reason, list(to_move), chain_head, url, turn, phase, events, dice, earlier)


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
             f"The game: {summary.url}", "",
             "You get this mail because your seat asked for turn notifications; "
             "PUT /api/v1/games/{id}/notifications with {\"notify\": false} stops them."]
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


def webhook_body(summary: Summary) -> bytes:
    return json.dumps({"event": "turn", **summary.as_json()}, separators=(",", ":"), ensure_ascii=False).encode()


# ============================================================================== signatures ====
def sign(secret: str, timestamp: str, body: bytes) -> str:
    """``sha256=<hex>``: HMAC-SHA256 over ``<timestamp>.<raw body>`` with the game's secret."""
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def verify_signature(secret: str, body: bytes, timestamp: str | None, signature: str | None, *,
                     tolerance: float = 300.0, now: float | None = None) -> bool:
    """What a receiver does: recompute the signature over the timestamp and the raw body,
    compare in constant time, and refuse a timestamp older (or newer) than ``tolerance``."""
    if not timestamp or not signature or not timestamp.isdigit():
        return False
    if abs((now if now is not None else time.time()) - int(timestamp)) > tolerance:
        return False
    return hmac.compare_digest(sign(secret, timestamp, body), signature)


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
        return cls(host=host, port=int(env.get("WARLOG_SMTP_PORT") or (465 if use_ssl else 25)),
                   user=env.get("WARLOG_SMTP_USER") or None, password=env.get("WARLOG_SMTP_PASSWORD") or None,
                   starttls=_flag(env.get("WARLOG_SMTP_STARTTLS")), ssl=use_ssl,
                   sender=env.get("WARLOG_SMTP_FROM") or "warlog@localhost",
                   timeout=float(env.get("WARLOG_SMTP_TIMEOUT") or 10))


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
    """POST the signed body to ``url`` once its target passes ``webhook_target.check`` (checked
    again at every delivery); returns the status, raises WebhookFailed for anything but 2xx.
    A redirect is not followed: it would send the signed body somewhere nobody checked."""
    try:
        target = webhook_target.check(url, allow, own)
    except webhook_target.Refused as exc:
        raise WebhookFailed(str(exc)) from None
    timestamp = str(int(now if now is not None else time.time()))
    headers = {"Host": target.host_header, "Content-Type": "application/json", "User-Agent": "warlog-webhook/1",
               TIMESTAMP_HEADER: timestamp, SIGNATURE_HEADER: sign(secret, timestamp, body), DELIVERY_HEADER: delivery}
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
    raw = (env.get("WARLOG_NOTIFY_RETRY_INTERVALS") or "30,120,600,1800").strip()
    return [int(x) for x in raw.split(",") if x.strip()]

