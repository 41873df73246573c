"""After each command, whom to notify and what to make: a follower of the event log that enqueues
delivery jobs, and the replays of a game that has ended.

The dispatcher reads the application's notification log the way the projector does (position
tracked in its own table). For every game with new events it reads the game's new lines, splits
them into commands (workers/notify.commands), compares whose_move before and after each one
(workers/notify.recipients) and writes one *delivery* row per (game, seq, channel, seat) — seq
is the command's last event — in the same transaction as its progress. Rows are then handed to
rq (the outbox is flushed: ``new`` → ``queued``).

A delivery row is the idempotency key: it is inserted with ON CONFLICT DO NOTHING, so two
dispatchers (one per worker process) or a restart after a crash never make a second row; and the
job claims its row before sending and marks it ``sent`` after, so a job enqueued twice, or
retried after it sent, never mails twice.

A command whose lines hold ``GameEnded`` queues the game's replays at its final version
(``on_end``: workers/jobs.enqueue_replays). It is called before the game's progress is written,
and the replays' job ids say what they make, so a second dispatcher or a restart finds the same
jobs instead of queueing new ones.

Each seat's choices (``notify.Prefs``, table ``warlog_notify_prefs``) pick which reasons reach it
and by which channel: a mail (``email``), the seat's own webhook (``webhook`` with the seat's
name, in the format the seat chose), or, for a seat that asked for a digest, an *item* kept
until the day's digest sweep (``Dispatcher.sweep_digests``) makes one ``digest`` delivery per
seat per day.

Mails go only to addresses their owners confirmed (``_mailable``; domain/access), which the
delivery job checks again. The confirmation mails asked for are in the outbox too: ``flush``
hands them to rq as rows of channel ``confirm`` (workers/notify_jobs.send_confirmation).

It runs as a thread of ``warlog worker`` (every worker may run one; they do not conflict).
"""

from __future__ import annotations

import logging
import smtplib
import threading
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

import redis

from domain.access import CONFIRM_TTL, AccessStore, whole_hours
from domain.errors import DamagedLog, GameNotFound
from domain.storage import OutageLog, SqlTables, rowcount, store_not_answering
from domain.rulesets import find_ruleset
from workers import notify

log = logging.getLogger("warlog.notify")

EMAIL, WEBHOOK, DIGEST = "email", "webhook", "digest"
CONFIRM = "confirm"  # an outbox row of a confirmation mail: {"channel": CONFIRM, "request_id", "game_id"}
NEW, QUEUED, SENDING, SENT, FAILED, SKIPPED = "new", "queued", "sending", "sent", "failed", "skipped"
STALE_CLAIM = timedelta(minutes=10)  # a 'sending' row older than this was left by a dead worker


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _instant(value: datetime | str) -> str:
    """A UTC time written one way, so the digest tables compare times as text."""
    when = datetime.fromisoformat(value) if isinstance(value, str) else value
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def digest_boundary(now: datetime, hour: int) -> datetime:
    """The last time of day ``hour`` (UTC) at or before ``now``: a digest covers what came before it."""
    now = now.astimezone(timezone.utc)
    boundary = now.replace(hour=hour, minute=0, second=0, microsecond=0)
    return boundary if boundary <= now else boundary - timedelta(days=1)


class NotifyStore(SqlTables):
    """Webhooks, the delivery ledger and the dispatcher's progress, beside the access tables."""

    TABLES = {
        "warlog_webhooks": "game_id TEXT PRIMARY KEY, url TEXT NOT NULL, secret TEXT NOT NULL, "
                           "created_at TEXT NOT NULL, format TEXT NOT NULL DEFAULT 'warlog'",
        "warlog_notify_deliveries": "game_id TEXT NOT NULL, seq BIGINT NOT NULL, channel TEXT NOT NULL, "
                                    "seat TEXT NOT NULL, reason TEXT NOT NULL, status TEXT NOT NULL, "
                                    "attempts INTEGER NOT NULL, claimed_at TEXT, sent_at TEXT, error TEXT, "
                                    "PRIMARY KEY (game_id, seq, channel, seat)",
        "warlog_notify_games": "game_id TEXT PRIMARY KEY, seq BIGINT NOT NULL",
        "warlog_notify_tracking": "name TEXT PRIMARY KEY, position BIGINT NOT NULL",
        # A seat's choices (notify.Prefs); events and channels are comma-separated.
        "warlog_notify_prefs": "game_id TEXT NOT NULL, seat TEXT NOT NULL, events TEXT NOT NULL, "
                               "channels TEXT NOT NULL, digest INTEGER NOT NULL, webhook_url TEXT, "
                               "webhook_secret TEXT, webhook_format TEXT NOT NULL DEFAULT 'warlog', "
                               "PRIMARY KEY (game_id, seat)",
        # What a digest seat was to be told of, waiting for its day's digest; and the digests made.
        "warlog_notify_digest_items": "game_id TEXT NOT NULL, seat TEXT NOT NULL, seq BIGINT NOT NULL, "
                                      "reason TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (game_id, seat, seq)",
        "warlog_notify_digests": "game_id TEXT NOT NULL, seat TEXT NOT NULL, day TEXT NOT NULL, "
                                 "seq BIGINT NOT NULL, PRIMARY KEY (game_id, seat, day)",
    }

    def create_tables(self, head: int = 0) -> None:
        """Create the tables; a store that already holds events starts notifying from now
        (``head``), not about its whole history."""
        with self._db.transaction(commit=True) as c:
            self._create(c)
            c.execute(self.sql("INSERT INTO {t}warlog_notify_tracking (name, position) VALUES (?, ?) "
                               "ON CONFLICT (name) DO NOTHING"), ("dispatch", head))

    def _create(self, c: Any) -> None:
        super()._create(c)
        # A store made before webhooks had a format has no format column, nor, before a seat's own
        # webhook had one, a webhook_format column: their webhooks get warlog's JSON, as before.
        for table, column in (("warlog_webhooks", "format"), ("warlog_notify_prefs", "webhook_format")):
            if not self.has_column(c, table, column):
                c.execute(f"ALTER TABLE {self._prefix}{table} ADD COLUMN {column} TEXT NOT NULL DEFAULT 'warlog'")

    # ------------------------------------------------------------------------------ webhooks --
    def set_webhook(self, game_id: str, url: str | None, secret: str | None = None,
                    fmt: str = notify.DEFAULT_FORMAT) -> None:
        self._run("DELETE FROM {t}warlog_webhooks WHERE game_id = ?", (game_id,))
        if url:
            self._run("INSERT INTO {t}warlog_webhooks (game_id, url, secret, created_at, format) "
                      "VALUES (?, ?, ?, ?, ?)", (game_id, url, secret, _now().isoformat(), fmt))

    def webhook(self, game_id: str) -> dict | None:
        row = self._run("SELECT url, secret, format FROM {t}warlog_webhooks WHERE game_id = ?", (game_id,),
                        fetch="one")
        return {"url": row["url"], "secret": row["secret"], "format": row["format"]} if row else None

    # --------------------------------------------------------------------------- seat choices --
    def set_prefs(self, game_id: str, seat: str, prefs: notify.Prefs, webhook_secret: str | None = None) -> None:
        """Store a seat's choices; ``webhook_secret`` None keeps the secret stored before (if the URL is set)."""
        old = self._run("SELECT webhook_secret FROM {t}warlog_notify_prefs WHERE game_id = ? AND seat = ?",
                        (game_id, seat), fetch="one")
        secret = None
        if prefs.webhook_url:
            secret = webhook_secret or (old["webhook_secret"] if old else None)
        with self._db.transaction(commit=True) as c:
            c.execute(self.sql("DELETE FROM {t}warlog_notify_prefs WHERE game_id = ? AND seat = ?"), (game_id, seat))
            c.execute(self.sql("INSERT INTO {t}warlog_notify_prefs (game_id, seat, events, channels, digest, "
                               "webhook_url, webhook_secret, webhook_format) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
                      (game_id, seat, ",".join(sorted(prefs.events)), ",".join(sorted(prefs.channels)),
                       1 if prefs.digest else 0, prefs.webhook_url, secret, prefs.webhook_format))

    def prefs(self, game_id: str) -> dict[str, notify.Prefs]:
        """{seat: choices} of the seats that made some; a seat missing here has the defaults."""
        rows = self._run("SELECT seat, events, channels, digest, webhook_url, webhook_format "
                         "FROM {t}warlog_notify_prefs WHERE game_id = ?", (game_id,), fetch="all")
        return {r["seat"]: notify.Prefs(frozenset(filter(None, r["events"].split(","))),
                                        frozenset(filter(None, r["channels"].split(","))), bool(r["digest"]),
                                        r["webhook_url"], r["webhook_format"]) for r in rows}

    def seat_webhook(self, game_id: str, seat: str) -> dict | None:
        """The seat's own webhook as ``webhook`` gives the game's: url, secret and format."""
        row = self._run("SELECT webhook_url, webhook_secret, webhook_format FROM {t}warlog_notify_prefs "
                        "WHERE game_id = ? AND seat = ? AND webhook_url IS NOT NULL", (game_id, seat), fetch="one")
        if row is None:
            return None
        return {"url": row["webhook_url"], "secret": row["webhook_secret"], "format": row["webhook_format"]}

    # ------------------------------------------------------------------------------- digests --
    def make_digests(self, boundary: datetime) -> int:
        """One ``digest`` delivery per seat with items from before ``boundary`` not in a digest
        yet, at most one per seat and boundary (the day); returns how many were made."""
        due = self._run(
            "SELECT i.game_id, i.seat, MAX(i.seq) AS seq FROM {t}warlog_notify_digest_items i WHERE i.at < ? "
            "AND i.seq > COALESCE((SELECT MAX(d.seq) FROM {t}warlog_notify_digests d WHERE d.game_id = i.game_id "
            "AND d.seat = i.seat), 0) GROUP BY i.game_id, i.seat", (_instant(boundary),), fetch="all")
        made = 0
        for d in due:
            with self._db.transaction(commit=True) as c:
                c.execute(self.sql("INSERT INTO {t}warlog_notify_digests (game_id, seat, day, seq) VALUES (?, ?, ?, ?) "
                                   "ON CONFLICT (game_id, seat, day) DO NOTHING"),
                          (d["game_id"], d["seat"], _instant(boundary), d["seq"]))
                if rowcount(c):
                    c.execute(self.sql("INSERT INTO {t}warlog_notify_deliveries (game_id, seq, channel, seat, reason, "
                                       "status, attempts) VALUES (?, ?, ?, ?, 'digest', 'new', 0) "
                                       "ON CONFLICT (game_id, seq, channel, seat) DO NOTHING"),
                              (d["game_id"], d["seq"], DIGEST, d["seat"]))
                    made += rowcount(c)
        return made

    def digest_items(self, game_id: str, seat: str, after: int, upto: int) -> list[dict]:
        return self._run("SELECT seq, reason FROM {t}warlog_notify_digest_items WHERE game_id = ? AND seat = ? "
                         "AND seq > ? AND seq <= ? ORDER BY seq", (game_id, seat, after, upto), fetch="all")

    # ----------------------------------------------------------------------------- progress ---
    def position(self) -> int:
        row = self._run("SELECT position FROM {t}warlog_notify_tracking WHERE name = 'dispatch'", fetch="one")
        return int(row["position"]) if row else 0

    def game_seq(self, game_id: str) -> int | None:
        row = self._run("SELECT seq FROM {t}warlog_notify_games WHERE game_id = ?", (game_id,), fetch="one")
        return None if row is None else int(row["seq"])

    def record(self, game_id: str, seq: int, deliveries: list[tuple[int, str, str, str]],
               items: list[tuple[str, int, str, str]] = ()) -> int:
        """In one transaction: the delivery rows (seq, channel, seat, reason) and the digest items
        (seat, seq, reason, time) not already there, and the game's progress (forward only).
        Returns the delivery rows inserted."""
        inserted = 0
        with self._db.transaction(commit=True) as c:
            for seat, i_seq, reason, at in items:
                c.execute(self.sql("INSERT INTO {t}warlog_notify_digest_items (game_id, seat, seq, reason, at) "
                                   "VALUES (?, ?, ?, ?, ?) ON CONFLICT (game_id, seat, seq) DO NOTHING"),
                          (game_id, seat, i_seq, reason, _instant(at)))
            for d_seq, channel, seat, reason in deliveries:
                c.execute(self.sql("INSERT INTO {t}warlog_notify_deliveries (game_id, seq, channel, seat, reason, "
                                   "status, attempts) VALUES (?, ?, ?, ?, ?, 'new', 0) "
                                   "ON CONFLICT (game_id, seq, channel, seat) DO NOTHING"),
                          (game_id, d_seq, channel, seat, reason))
                inserted += rowcount(c)
            c.execute(self.sql("INSERT INTO {t}warlog_notify_games AS g (game_id, seq) VALUES (?, ?) "
                               "ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq WHERE g.seq < excluded.seq"),
                      (game_id, seq))
        return inserted

    def write_position(self, position: int) -> None:
        self._run("UPDATE {t}warlog_notify_tracking SET position = ? WHERE name = 'dispatch' AND position < ?",
                  (position, position))

    # ---------------------------------------------------------------------------- deliveries --
    # A row claimed more than STALE_CLAIM before (the parameter) and never finished: its worker died
    # mid-send (a job timeout, a restart, the OOM killer), and rq's retries of that job, finding the
    # row still claimed, had stopped; or handed to rq as long ago and never taken, its job lost with
    # Redis (restarted without its data, or another one). It may be claimed again, and the outbox
    # holds it again: a job of it still in rq finds it sent, and sends nothing (claim).
    _STALE = "(status IN ('queued', 'sending') AND claimed_at < ?)"
    # What the outbox holds: the new rows and the stale claims.
    _OUTBOX = f"(status = 'new' OR {_STALE})"
    # A webhook's delivery waits while an earlier one of the same webhook (the game's, or a seat's)
    # is new, queued or being sent (for less than STALE_CLAIM), or failed with a retry to come (for
    # less than the longest retry interval and STALE_CLAIM): one worker sends every webhook in turn,
    # and a receiver that answers slowly held all of them up behind each of its deliveries.
    _HELD = ("d.channel = 'webhook' AND EXISTS (SELECT 1 FROM {t}warlog_notify_deliveries o WHERE "
             "o.game_id = d.game_id AND o.channel = d.channel AND o.seat = d.seat AND o.seq < d.seq AND "
             "(o.status = 'new' OR (o.status IN ('queued', 'sending') AND o.claimed_at >= ?) "
             "OR (o.status = 'failed' AND o.attempts <= ? AND o.claimed_at >= ?)))")

    def outbox(self, now: datetime, limit: int = 100, retry_intervals: list[int] | None = None) -> list[dict]:
        """The rows to hand to rq now, a webhook's one at a time (``_HELD``); ``retry_intervals``
        the notifications' (notify.retry_intervals)."""
        retries = notify.retry_intervals() if retry_intervals is None else retry_intervals
        stale = (now - STALE_CLAIM).isoformat()
        retrying = (now - STALE_CLAIM - timedelta(seconds=max(retries, default=0))).isoformat()
        return self._run("SELECT d.game_id, d.seq, d.channel, d.seat FROM {t}warlog_notify_deliveries d WHERE "
                         f"{self._OUTBOX} AND NOT ({self._HELD}) ORDER BY d.game_id, d.seq LIMIT ?",
                         (stale, stale, len(retries), retrying, limit), fetch="all")

    def mark_queued(self, d: dict, now: datetime) -> None:
        """The row is in rq's queue since ``now`` (its ``claimed_at`` until a worker claims it)."""
        self._run("UPDATE {t}warlog_notify_deliveries SET status = 'queued', claimed_at = ? WHERE game_id = ? "
                  f"AND seq = ? AND channel = ? AND seat = ? AND {self._OUTBOX}",
                  (now.isoformat(), d["game_id"], d["seq"], d["channel"], d["seat"], (now - STALE_CLAIM).isoformat()))

    def delivery(self, game_id: str, seq: int, channel: str, seat: str) -> dict | None:
        return self._run("SELECT * FROM {t}warlog_notify_deliveries WHERE game_id = ? AND seq = ? AND channel = ? "
                         "AND seat = ?", (game_id, seq, channel, seat), fetch="one")

    def deliveries(self, game_id: str) -> list[dict]:
        return self._run("SELECT * FROM {t}warlog_notify_deliveries WHERE game_id = ? ORDER BY seq, channel, seat",
                         (game_id,), fetch="all")

    def claim(self, game_id: str, seq: int, channel: str, seat: str) -> bool:
        """Take the row for sending; False when it was sent, skipped or is being sent."""
        now = _now()
        return self._run("UPDATE {t}warlog_notify_deliveries SET status = 'sending', claimed_at = ?, "
                         "attempts = attempts + 1 WHERE game_id = ? AND seq = ? AND channel = ? AND seat = ? AND "
                         f"(status IN ('new', 'queued', 'failed') OR {self._STALE})",
                         (now.isoformat(), game_id, seq, channel, seat, (now - STALE_CLAIM).isoformat())) == 1

    def finish(self, game_id: str, seq: int, channel: str, seat: str, status: str, error: str | None = None) -> None:
        self._run("UPDATE {t}warlog_notify_deliveries SET status = ?, error = ?, sent_at = ? WHERE game_id = ? "
                  "AND seq = ? AND channel = ? AND seat = ?",
                  (status, error, _now().isoformat() if status == SENT else None, game_id, seq, channel, seat))

    def previous_seq(self, game_id: str, seq: int, channel: str, seat: str) -> int:
        row = self._run("SELECT MAX(seq) AS m FROM {t}warlog_notify_deliveries WHERE game_id = ? AND seq < ? "
                        "AND channel = ? AND seat = ? AND status <> 'skipped'", (game_id, seq, channel, seat),
                        fetch="one")
        return int(row["m"]) if row and row["m"] is not None else 0


# =============================================================================== dispatcher ====
Enqueue = Callable[[dict], None]
OnEnd = Callable[[str, int], None]  # (game id, final version)


class Dispatcher:
    def __init__(self, service: Any, enqueue: Enqueue, *, store: NotifyStore | None = None,
                 access: AccessStore | None = None, email_enabled: bool = True, on_end: OnEnd | None = None,
                 digest_hour: int = 7, clock: Callable[[], datetime] = _now):
        self.service = service
        self.enqueue = enqueue
        self.store = store or NotifyStore.for_service(service)
        self.access = access or AccessStore.for_service(service)
        self.email_enabled = email_enabled
        self.on_end = on_end
        self.digest_hour = digest_hour  # the digests go out once a day at this hour (UTC)
        self.clock = clock  # injected by the tests, to make a day pass
        self.stopping = threading.Event()

    def run_batch(self, limit: int = 500) -> int:
        """Dispatch the next ``limit`` notifications of the log, then flush the outbox; returns
        how many notifications were read (0: caught up)."""
        start = self.store.position()
        notifications = self.service.recorder.select_notifications(start + 1, limit)
        firsts: dict[str, int] = {}
        for n in notifications:
            gid = str(n.originator_id)
            firsts[gid] = min(firsts.get(gid, n.originator_version), n.originator_version)
        for gid, first in firsts.items():
            try:
                self.dispatch_game(gid, first - 1)
            except (DamagedLog, GameNotFound) as exc:
                log.error("game %s: no notifications (%s)", gid, exc)
        if notifications:
            self.store.write_position(notifications[-1].id)
        self.flush()
        return len(notifications)

    def dispatch_game(self, game_id: str, fallback_seq: int) -> int:
        """Decide the deliveries of a game's commands after its progress; returns rows made."""
        done = self.store.game_seq(game_id)
        if done is None:
            done = fallback_seq  # a game first seen now: only its new events count
        lines = self.service.lines(game_id, after=done)
        if not lines:
            return 0
        contacts = self.access.contacts(game_id) if self.email_enabled else {}
        hook = self.store.webhook(game_id)
        choices = self.store.prefs(game_id)
        rows: list[tuple[int, str, str, str]] = []
        items: list[tuple[str, int, str, str]] = []
        before_game = self.service.get_game(game_id, version=done) if done > 0 else None
        for command in notify.commands(lines):
            if self.on_end is not None and any(line["type"] == "GameEnded" for line in command.lines):
                self.on_end(game_id, command.last)
            after_game = self.service.get_game(game_id, version=command.last)
            if before_game is not None:
                seats = after_game.human_seats()
                told = notify.recipients(command, seats, before_game.whose_move(), after_game.whose_move())
                for seat, reason in told.items():
                    prefs = choices.get(seat, notify.Prefs())
                    if not prefs.wants(reason):
                        continue
                    contact = contacts.get(seat)
                    if "email" in prefs.channels and _mailable(contact):
                        if prefs.digest:
                            items.append((seat, command.last, reason, command.lines[-1]["timestamp"]))
                        else:
                            rows.append((command.last, EMAIL, seat, reason))
                    if "webhook" in prefs.channels and prefs.webhook_url:
                        rows.append((command.last, WEBHOOK, seat, reason))
                if told and hook:
                    rows.append((command.last, WEBHOOK, "", ",".join(sorted(set(told.values())))))
            before_game = after_game
        return self.store.record(game_id, lines[-1]["seq"], rows, items)

    def sweep_digests(self, now: datetime | None = None) -> int:
        """Make the digests due at ``now`` (default: the clock) and hand them to rq; returns how many."""
        made = self.store.make_digests(digest_boundary(now or self.clock(), self.digest_hour))
        self.flush()
        return made

    def flush(self) -> int:
        """Hand the outbox's rows to rq (a stale claim among them again), and the confirmation mails
        asked for (when mail is on); returns how many. An idle poll only reads."""
        now = self.clock()
        sent = 0
        while self.email_enabled:
            asked = self.access.confirmations_to_queue()
            if not asked:
                break
            for row in asked:
                self.enqueue({"channel": CONFIRM, **row})
                self.access.confirmation_queued(row["request_id"])
                sent += 1
        while True:
            rows = self.store.outbox(now)
            if not rows:
                return sent
            for row in rows:
                self.enqueue(row)
                self.store.mark_queued(row, now)
                sent += 1

    def stop(self, *args: Any) -> None:
        self.stopping.set()

    def run(self, poll_seconds: float = 1.0) -> None:
        log.info("notification dispatcher started at notification %s", self.store.position())
        outage = OutageLog(log, "notification dispatcher", _not_answering)
        while not self.stopping.is_set():
            try:
                while not self.stopping.is_set() and self.run_batch():
                    pass
                self.sweep_digests()
                outage.got_through()
            except Exception as exc:  # a store or Redis briefly away must not end the worker
                outage.failed(exc, poll_seconds)
            self.stopping.wait(poll_seconds)


def _mailable(contact: dict | None) -> bool:
    """A seat's contact that gets turn mails: an address its owner confirmed, notify on."""
    return bool(contact and contact["notify"] and contact["email"] and contact["confirmed"])


def _not_answering(exc: BaseException) -> str | None:
    """What did not answer, for the dispatcher's OutageLog: the store, or Redis."""
    if store_not_answering(exc):
        return "the store"
    if isinstance(exc, (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)):
        return "Redis"
    return None


# ================================================================================ delivering ====
class MailFailed(Exception):
    """The SMTP server refused or did not answer (the job fails and is retried)."""


def deliver(service: Any, game_id: str, seq: int, channel: str, seat: str, *, smtp: notify.SmtpSettings | None,
            public_url: str, store: NotifyStore | None = None, access: AccessStore | None = None,
            webhook_timeout: float = 5.0) -> str:
    """Send one delivery once; returns what happened (sent / already done / skipped: why).
    Raises when sending fails, after recording the error, so rq retries it."""
    store = store or NotifyStore.for_service(service)
    access = access or AccessStore.for_service(service)
    if not store.claim(game_id, seq, channel, seat):
        found = store.delivery(game_id, seq, channel, seat)
        return f"already {found['status']}" if found else "no such delivery"
    try:
        outcome = _send(service, store, access, game_id, seq, channel, seat, smtp, public_url, webhook_timeout)
    except Exception as exc:
        store.finish(game_id, seq, channel, seat, FAILED, _error_text(exc))
        raise
    store.finish(game_id, seq, channel, seat, SENT if outcome == "sent" else SKIPPED,
                 None if outcome == "sent" else outcome)
    return outcome


def deliver_confirmation(access: AccessStore, request_id: str, *, smtp: notify.SmtpSettings | None,
                         public_url: str) -> str:
    """Send the confirmation mail of one request (AccessStore.request_confirmation); the secret
    is made here, so it travels only in the mail, never through Redis. Raises MailFailed so rq
    retries, each attempt with a new secret."""
    if smtp is None:
        return "skipped: WARLOG_SMTP_HOST is not set"
    found = access.confirmation_to_send(request_id)
    if found is None:
        return "skipped: sent or confirmed already, being sent, or the seat's address changed"
    request, secret = found
    domain = smtp.sender.rpartition("@")[2] or "warlog"
    msg = notify.confirmation_email(request["email"], smtp.sender, notify.confirmation_link(public_url, secret),
                                    whole_hours(CONFIRM_TTL),
                                    message_id=f"<warlog.confirm.{request_id}@{domain}>")
    try:
        notify.send_email(smtp, msg)
    except (OSError, smtplib.SMTPException) as exc:
        access.confirmation_sent(request_id, sent=False)  # the retry claims it again (a job killed mid-send: CONFIRM_CLAIM)
        code = getattr(exc, "smtp_code", None)  # as in _send: never the address
        raise MailFailed(f"SMTP {type(exc).__name__}" + (f" {code}" if code else "")) from None
    access.confirmation_sent(request_id)
    return "sent"


def _error_text(exc: Exception) -> str:
    # The class and message only: smtplib and urllib messages hold no password or secret.
    return f"{type(exc).__name__}: {exc}"[:500]


def _replay_start(service: Any, game_id: str, seq: int, seats: list[str], page: int = 500) -> int:
    """notify.last_acted over the log up to ``seq``, read backwards a page at a time until every
    seat's last command is in what was read (a command found has its head there, so its end too)."""
    lines: list[dict] = []
    found = {seat: 0 for seat in seats}
    high = seq
    while high > 0 and not all(found.values()):
        low = max(0, high - page)
        lines = service.lines(game_id, after=low, limit=high - low) + lines
        found = notify.last_commands(lines, seats)
        high = low
    return min(found.values(), default=0)


def _send(service, store, access, game_id, seq, channel, seat, smtp, public_url, webhook_timeout) -> str:
    game = service.get_game(game_id, version=seq)
    rules = find_ruleset(game.ruleset)
    state = game.state or {}
    delivery = store.delivery(game_id, seq, channel, seat)
    mail = channel in (EMAIL, DIGEST)
    chosen = store.prefs(game_id).get(seat, notify.Prefs()).channels if seat else set()
    if mail:
        contact = access.contacts(game_id).get(seat)
        if not contact or not contact["notify"] or not contact["email"] or "email" not in chosen:
            return "skipped: the seat opted out"
        if not contact["confirmed"]:  # the address changed after the row was made, to one not confirmed
            return "skipped: the seat's address is not confirmed"
        if smtp is None:
            return "skipped: WARLOG_SMTP_HOST is not set"
    else:
        hook = (store.seat_webhook(game_id, seat) if "webhook" in chosen else None) if seat else store.webhook(game_id)
        if not hook:
            return "skipped: the seat has no webhook" if seat else "skipped: the game has no webhook"
        if notify.secret_problem(hook["secret"]):  # set before Standard Webhooks: its owner sets it again
            return "skipped: the webhook's secret is not a Standard Webhooks secret; set the webhook again"
    after = store.previous_seq(game_id, seq, channel, seat)
    low = max(after, seq - notify.WINDOW)
    lines = service.lines(game_id, after=low, limit=seq - low)
    earlier = 0
    if seat:  # a seat's own mail, digest or webhook: what it may see, since it last acted
        window = notify.since_last_acted(lines, seat, after)
        viewer: str | None = seat
    else:
        window = lines
        viewer = None
    if low > after and window and window[0]["seq"] == low + 1:
        earlier = low - after
    # The replay link opens at the reader's last order; the game's webhook's at the movers'.
    start = _replay_start(service, game_id, seq, [seat] if seat else game.whose_move())
    news = store.digest_items(game_id, seat, after, seq) if channel == DIGEST else None
    summary = notify.build_summary(rules, game_id, window, viewer=viewer, reason=delivery["reason"],
                                   to_move=game.whose_move(), chain_head=game.chain_head, seq=seq,
                                   public_url=public_url, turn=state.get("turn"), phase=state.get("phase"),
                                   earlier=earlier, start=start, news=news)
    key = f"{game_id}:{seq}:{channel}:{seat}"
    if mail:
        handle = (game.seats.get(seat) or {}).get("handle")
        domain = smtp.sender.rpartition("@")[2] or "warlog"
        kind = "digest." if channel == DIGEST else ""
        msg = notify.build_email(summary, contact["email"], smtp.sender, handle,
                                 message_id=f"<warlog.{kind}{game_id}.{seq}.{seat}@{domain}>")
        try:
            notify.send_email(smtp, msg)
        except (OSError, smtplib.SMTPException) as exc:
            # Only the kind of failure and the SMTP code: a refused recipient's message names the
            # address, and this text ends up in rq's failed-job record and the worker's log.
            code = getattr(exc, "smtp_code", None)
            raise MailFailed(f"SMTP {type(exc).__name__}" + (f" {code}" if code else "")) from None
    else:
        # Each webhook in the format its owner chose (the game's admin, or the seat), from the
        # summary already filtered for its reader.
        body = notify.webhook_body(summary, hook["format"], notify.game_name(rules, game_id))
        notify.post_webhook(hook["url"], hook["secret"], body, delivery=key, timeout=webhook_timeout, own=public_url)
    return "sent"
