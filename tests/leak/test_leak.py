"""The leak test (issue 34, section 5; docs/testing.md): random games of every ruleset with hidden
information, played over the HTTP API, and everything each seat, a spectator and the admin can
read of them searched for what they have not been shown — state, lines, the live stream, their
export, legal orders, the answers to their orders and refusals, notification mails and daily
digests (a real SMTP server), the game's webhook and a seat's own (real HTTP receivers), the
replays and statistics a real rq worker made.

All games are played once for the module (``played``); each test then reads its part of the
report. The same harness finds the leaks of the test-only rulesets that leak on purpose
(tests/leak/leaky.py). ``WARLOG_LEAK_SEED`` replays a run (its seed is in every failure);
``WARLOG_LEAK_GAMES`` sets the games per player (default 5).
"""

from __future__ import annotations

import inspect
import os
import random
import re
import secrets
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

import pytest
from redis import Redis

from api.app import create_app
from domain.rulesets import Ruleset, find_ruleset, ruleset_names
from domain.storage import config_from_env
from tests.conftest import make_app
from tests.leak import leaky
from tests.leak.harness import Leak, Reader, Texts, artifact_reads
from tests.leak.players import NO_HIDDEN_INFORMATION, PLAYERS
from tests.leak.table import Table
from tests.workers.conftest import RqEnv, remove_queue
from tests.workers.notify_helpers import smtp_server, webhook_receiver
from workers import jobs as work
from workers import notify, queue as rqueue
from workers.dispatch import Dispatcher, deliver

SEED = int(os.environ.get("WARLOG_LEAK_SEED") or secrets.randbits(32))
GAMES = int(os.environ.get("WARLOG_LEAK_GAMES") or 5)
LEAKY_GAMES = 2
WEBHOOK_SECRET = "whsec_" + "leaktest" * 5  # a Standard Webhooks secret: base64 of 30 bytes
PUBLIC = "https://warlog.example"

# The hooks through which a ruleset hides something (docs/rulesets.md); spec34's concealment adds
# its own (``concealable``, ``hidden_fields``) when it lands.
HIDING_HOOKS = ("view", "standing_policies", "sealed_phase", "concealable", "hidden_fields")


@dataclass
class Played:
    tables: dict[str, list[Table]] = field(default_factory=lambda: defaultdict(list))  # label -> tables

    def leaks(self, label: str) -> list[Leak]:
        return [leak for t in self.tables[label] for leak in t.leaks]

    def errors(self, label: str) -> list[str]:
        return [e for t in self.tables[label] for e in t.errors]


def report(leaks: list[Leak], limit: int = 30) -> str:
    lines = [str(leak) for leak in leaks[:limit]]
    more = f"\n… and {len(leaks) - limit} more" if len(leaks) > limit else ""
    return f"(WARLOG_LEAK_SEED={SEED})\n" + "\n".join(lines) + more


@pytest.fixture(scope="module")
def played(tmp_path_factory, redis_url):
    """Every game of the leak test played, checked during play and at its end, then its mails,
    webhooks, replays and statistics made and checked."""
    root = tmp_path_factory.mktemp("leak")
    config = config_from_env({"WARLOG_DATA_DIR": str(root / "data"), "WARLOG_SNAPSHOT_INTERVAL": "20"})
    service = make_app(config)
    rq = RqEnv(redis_url, Redis.from_url(redis_url), "warlog-leak-" + secrets.token_hex(6))
    artifacts = root / "artifacts"
    app = create_app({"WARLOG_SERVICE": service, "TESTING": True, "REDIS_URL": rq.url, "WARLOG_QUEUE": rq.queue,
                      "WARLOG_ARTIFACT_DIR": str(artifacts),
                      # thousands of reads from one address: a rate limit's 429 would hide what a surface shows
                      "WARLOG_RATE_LIMITS": False})
    client = app.test_client()
    leaky.register()
    done = Played()
    try:
        with pytest.MonkeyPatch.context() as env, smtp_server() as (box, port), \
                webhook_receiver(WEBHOOK_SECRET) as (receiver, hook_url), \
                webhook_receiver(WEBHOOK_SECRET) as (seat_receiver, seat_hook_url):
            env.setenv("WARLOG_STREAM_MAX_SECONDS", "0.01")  # a stream of a game in play ends after its backlog
            env.setenv("WARLOG_STREAM_POLL_SECONDS", "0.05")
            env.setenv("WARLOG_WEBHOOK_ALLOW", "127.0.0.0/8")
            env.setenv("WARLOG_JOB_RETRY_INTERVALS", "0")
            rng = random.Random(SEED)
            games = [(f"{ruleset}: {what}", make_body, play, GAMES)
                     for ruleset, players in PLAYERS.items() for what, make_body, play in players]
            games += [(ruleset.name, leaky.body(ruleset.name), leaky.script, LEAKY_GAMES) for ruleset in leaky.RULESETS]
            for label, make_body, play, count in games:
                for n in range(count):
                    game_rng = random.Random(rng.randrange(2**32))
                    t = Table(client, service, f"{label} #{n + 1}", make_body(game_rng), game_rng,
                              mail_domain="leak.example",
                              webhook=(hook_url, WEBHOOK_SECRET, notify.FORMATS[n % len(notify.FORMATS)]),
                              seat_webhook=(seat_hook_url, WEBHOOK_SECRET))
                    play(t, game_rng)
                    t.check("at the end", full=True)
                    done.tables[label].append(t)
            _made_after_the_end(service, client, rq, root / "data", artifacts, box, port, receiver, seat_receiver,
                                done)
    finally:
        leaky.unregister()
        remove_queue(rq.conn, rq.queue, rq.job_ids)
        rq.conn.close()
        service.close()
    return done


def _made_after_the_end(service, client, rq, data_dir, artifacts, box, port, receiver, seat_receiver,
                        done: Played) -> None:
    """The notification dispatcher (its mails and a day's digests to a real SMTP server, its
    webhooks to real receivers) and the replays it queues at each game's end, the statistics a
    seat asks for, all made by a real rq worker; then what each reader gets of them, checked."""
    q = rqueue.get_queue(rq.conn, rq.queue)
    smtp = notify.SmtpSettings(host="127.0.0.1", port=port, sender="warlog@leak.example", timeout=5)
    rows: list[dict] = []
    dispatcher = Dispatcher(service, rows.append,
                            on_end=lambda gid, version: work.enqueue_replays(q, gid, version, str(artifacts)))
    while dispatcher.run_batch():
        pass
    dispatcher.sweep_digests(datetime.now(timezone.utc) + timedelta(days=1))  # a day later: the digests
    sent = 0
    while sent < len(rows):  # a webhook's next delivery is handed over once the one before is sent
        for row in rows[sent:]:
            deliver(service, row["game_id"], row["seq"], row["channel"], row["seat"], smtp=smtp, public_url=PUBLIC)
            sent += 1
        dispatcher.flush()
    tables = [t for ts in done.tables.values() for t in ts]
    for t in tables:
        r = client.post(f"/api/v1/games/{t.game_id}/statistics", headers=t.headers[t.seats[0]])
        assert r.status_code == 202, r.json
    rq.work(data_dir, module="tests.leak.worker")
    # By the game of the webhook-id (<game id>:<seq>:webhook:<seat>), whatever the format.
    posts, seat_posts = defaultdict(list), defaultdict(list)
    for post in receiver.posts:
        posts[post["headers"]["webhook-id"].split(":")[0]].append(post)
    for post in seat_receiver.posts:
        seat_posts[post["headers"]["webhook-id"].split(":")[0]].append(post)
    for t in tables:
        for reader in t.readers:
            mails = [(int(msg["X-Warlog-Seq"]), "mail", f"{msg['Subject']}\n{msg.get_payload(decode=True).decode()}")
                     for msg in (box.to(t.emails[reader.viewer]) if reader.viewer is not None else [])]
            t.check_texts(reader, artifact_reads(client, t.game_id, reader), mails)
        assert all(post["valid"] for post in posts[t.game_id])
        hooks = [(int(post["headers"]["webhook-id"].split(":")[1]), "webhook", post["raw"].decode())
                 for post in posts[t.game_id]]
        t.check_texts(Reader("webhook", None, {}), Texts(), hooks)
        assert all(post["valid"] for post in seat_posts[t.game_id])
        own = [(post["body"]["seq"], "seat webhook", post["raw"].decode()) for post in seat_posts[t.game_id]]
        t.check_texts(Reader(t.hooked_seat, t.hooked_seat, t.headers[t.hooked_seat]), Texts(), own)
        t.mails = {seat: len(box.to(t.emails[seat])) for seat in t.seats}
        t.webhooks = len(posts[t.game_id])
        t.seat_webhooks = len(seat_posts[t.game_id])
        t.digests = sum(1 for msg in box.to(t.emails[t.digest_seat]) if "daily digest" in msg["Subject"])


# =================================================================================== tests ====
def test_every_ruleset_with_hidden_information_is_played_by_the_leak_test():
    """A ruleset that overrides a hook that hides something is in PLAYERS; the others are listed
    in NO_HIDDEN_INFORMATION with the reason, and truly override none of them."""
    for name in ruleset_names():
        if name in {r.name for r in leaky.RULESETS} or type(find_ruleset(name)).__module__.startswith("tests."):
            continue  # a ruleset a test registered (here, or another test in the same session)
        assert name in PLAYERS or name in NO_HIDDEN_INFORMATION, f"{name}: add it to tests/leak/players.py"
        if name in NO_HIDDEN_INFORMATION:
            rules = type(find_ruleset(name))
            overridden = [hook for hook in HIDING_HOOKS if hasattr(rules, hook)
                          and inspect.getattr_static(rules, hook) is not inspect.getattr_static(Ruleset, hook, None)]
            assert not overridden, f"{name} hides something ({', '.join(overridden)}): give it a player"


@pytest.mark.parametrize("label", [f"{r}: {what}" for r, players in PLAYERS.items() for what, _, _ in players])
def test_no_reader_reads_what_it_has_not_been_shown(played, label):
    tables = played.tables[label]
    assert len(tables) == GAMES
    assert not played.errors(label), played.errors(label)
    leaks = played.leaks(label)
    assert not leaks, report(leaks)
    unseen = [u for t in tables for u in t.unseen()]
    assert not unseen, unseen  # every token planted was found where its author reads it


def test_every_kind_of_reader_and_artifact_was_read(played):
    """The harness read what it claims to: mails went out, webhooks arrived, replays were made."""
    tables = [t for ts in played.tables.values() for t in ts]
    assert sum(sum(t.mails.values()) for t in tables) > len(tables)
    assert all(t.webhooks for t in tables)
    assert sum(t.seat_webhooks for t in tables) and sum(t.digests for t in tables)
    surfaces = {surface for t in tables for texts in t.final.values() for surface, _ in texts}
    assert {"export", "stream", "legal orders", "refusals", "order answers", "events, 1 at a time",
            "replay frames", "state at turn 1"} <= surfaces, surfaces
    assert any(t.sandboxes for t in played.tables[next(label for label in played.tables if label.startswith("proving"))])
    assert sum(t.shown for t in tables) >= 2  # sealed rolls shown before the end, the others kept sealed


def test_a_ruleset_that_hides_notes_in_its_state_leaks_nothing(played):
    """notes-kept hides state the right way: no leak, even through a take-back's restored state or
    the legal orders (computed from the seat's view of the state)."""
    label = "notes-kept"
    assert not played.errors(label), played.errors(label)
    leaks = played.leaks(label)
    assert not leaks, report(leaks)


def _surfaces(played, label: str) -> dict[str, set[str]]:
    """{surface: readers} of the leaks found in the games of ``label`` (a state read at some
    event counts as "state at event")."""
    found: dict[str, set[str]] = defaultdict(set)
    for leak in played.leaks(label):
        assert leak.what.endswith("private note") or "withholds" in leak.what, leak
        found[re.sub(r"state at event \d+", "state at event", leak.surface)].add(leak.reader)
    return found


def test_the_harness_finds_a_view_that_leaks_the_state(played):
    found = _surfaces(played, "leaky-view")
    assert {"state", "state at event", "legal orders", "replay frames", "replay (the worker's frames)",
            "replay (the offline HTML file)"} <= set(found), report(played.leaks("leaky-view"))
    assert {"spectator", "admin"} <= found["state"]


def test_the_harness_finds_a_line_and_its_readable_text_that_leak(played):
    found = _surfaces(played, "leaky-purpose")
    assert {"history", "dice audit", "events", "events, 1 at a time", "export", "stream", "mail", "webhook",
            "seat webhook",
            "replay frames", "replay (the worker's frames)", "replay (the offline HTML file)"} <= set(found), \
        report(played.leaks("leaky-purpose"))


def test_the_harness_finds_a_refusal_that_leaks(played):
    found = _surfaces(played, "leaky-refusal")
    assert set(found) == {"refusals"}, report(played.leaks("leaky-refusal"))
