"""The ``warlog`` command: serve, migrate, the offline tools export / import / verify / check, and
the client commands that play a game through a server's HTTP API (api/client.py)."""

from __future__ import annotations

import argparse
import contextlib
import difflib
import hashlib
import json
import os
import re
import secrets
import shlex
import signal
import sys
import tempfile
import uuid
import urllib.parse
from typing import Sequence

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _service():
    from domain.service import Warlog

    return Warlog()


def _no_tables(service) -> None:
    """Raise a usage error naming ``service``'s store when its tables were never made."""
    from api.app import schema_made

    if not schema_made(service):
        raise UsageError(f"no warlog tables at {service.config.describe()} (WARLOG_DATA_DIR, default ./var, "
                         "or WARLOG_DATABASE_URL): create them once with 'warlog migrate'") from None


def _service_when_up():
    """The service of a long-running process (web, projector, worker), made once its database
    answers (``api.app.wait_for_database``)."""
    from api.app import wait_for_database
    from domain.storage import config_from_env

    wait_for_database(config_from_env())
    return _service()


def cmd_migrate(args: argparse.Namespace) -> int:
    from api.app import migrate

    config = migrate()
    print(f"schema ready on {config.describe()}")
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    """Create the schema once (when the database answers), then hand over to gunicorn (never the
    Flask dev server)."""
    from api.app import wait_for_database
    from domain.storage import config_from_env

    wait_for_database(config_from_env())
    cmd_migrate(args)
    print(f"warlog listening on http://{args.host}:{args.port}/ (health: /healthz)", flush=True)
    conf = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gunicorn_conf.py")
    argv = ["gunicorn", "-c", conf, "--workers", str(args.workers), "--bind", f"{args.host}:{args.port}",
            "--access-logfile", "-", "api.app:create_app()"]
    os.execvp(sys.executable, [sys.executable, "-m", *argv])
    return EXIT_OK  # not reached


def _file_to_write(output: str | None) -> str | None:
    """``-o``: the name of a file to write; a folder there is said before any work is done (the
    file is written beside its final name and renamed, which a folder would refuse only at the end)."""
    if output and os.path.isdir(output):
        raise UsageError(f"-o {output} is a folder: give a file's name, e.g. -o {os.path.join(output, 'NAME')}")
    return output


def cmd_export(args: argparse.Namespace) -> int:
    """From a server when --server or WARLOG_SERVER is given (and not --local), else the local store."""
    _file_to_write(args.output)
    if not args.local and _server_from_env_or_option(args):
        return _export_from_server(args)
    from domain.errors import GameNotFound

    game_id = _saved_game_id(args.game_id)
    service, where = _local_store()
    try:
        count, hidden = write_lines(service.export(game_id, header=True), args.output)
    except GameNotFound as exc:
        raise GameNotFound(f"{exc} in this machine's store ({where}: WARLOG_DATA_DIR or WARLOG_DATABASE_URL); "
                           "to export from a server give --server URL") from None
    if args.output:
        say(f"exported {count} events of game {game_id} from {where} to {args.output}", file=sys.stderr)
        _say_what_the_export_is(args.output, hidden, game_id)
    return EXIT_OK


def _local_store(hint: str = "to read a server's game give --server URL"):
    """(the service, where its store is) for a command that reads this machine's store; a store
    that holds nothing yet (no file, no tables) is said to be so, naming where it was looked for."""
    from api.app import schema_made
    from domain.errors import GameNotFound
    from domain.storage import SQLITE_FILE, config_from_env, data_dir_from_env

    def empty(where: str) -> GameNotFound:
        return GameNotFound(f"no warlog store at {where} (WARLOG_DATA_DIR, default ./var, or WARLOG_DATABASE_URL): "
                            f"nothing has been stored there; {hint}")

    if not os.environ.get("WARLOG_DATABASE_URL", "").strip():
        database = data_dir_from_env() / SQLITE_FILE
        if not database.exists():  # asked before config_from_env, which makes the folder and the file
            raise empty(f"sqlite:{database}")
    where = config_from_env().describe()
    service = _service()
    if not schema_made(service):
        service.close()
        raise empty(where)
    return service, where


def write_lines(lines, output: str | None) -> tuple[int, dict[str, int]]:
    """Write export lines to ``output`` (standard output when None): (events, {"redacted": lines
    with hidden content removed (format 1), "concealed": lines holding commitments (format 2)}).
    A file is written beside its final name and renamed once complete, so a refusal or a broken
    download leaves no file, empty or cut short."""
    first = next(lines, None)  # a refusal (no such game) is raised before anything is created
    on_terminal = not output and sys.stdout.isatty()  # shown, not kept: stored text escaped as \uXXXX
    if not output:
        out, tmp = sys.stdout, None
    else:
        folder = os.path.dirname(os.path.abspath(output))
        fd, tmp = tempfile.mkstemp(prefix=".export-", suffix=".jsonl", dir=folder)
        out = os.fdopen(fd, "w", encoding="utf-8")
    count, hidden = 0, {"redacted": 0, "concealed": 0}
    try:
        for part in ([first] if first is not None else []), lines:
            for text in part:
                out.write((_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) if on_terminal else text)
                          + "\n")
                count += not text.startswith('{"warlog_export"')  # the header line is no event
                how = _hidden_in(text)
                if how:
                    hidden[how] += 1
        if tmp:
            out.close()
            os.replace(tmp, output)
    except BaseException:
        if tmp:
            out.close()
            os.unlink(tmp)
        raise
    return count, hidden


def _hidden_in(text: str) -> str | None:
    """How an export line hides something from its reader: "redacted" (removed, format 1),
    "concealed" (commitments in place of values, format 2), or None."""
    if '"redacted":true' in text or '"redacted": true' in text:
        return "redacted"
    if '"concealed"' not in text:
        return None
    from domain.chain import withheld

    try:
        line = json.loads(text)
    except ValueError:
        return None
    return "concealed" if isinstance(line, dict) and withheld(line.get("data")) else None


def _say_what_the_export_is(output: str, hidden: dict[str, int], game_id: str) -> None:
    """A seat's copy of a format-2 game verifies, holding commitments to what it may not see; of
    a format-1 game with hidden information, it does not verify, by design: say so now, not when
    'verify' reports an altered line."""
    if hidden["concealed"]:
        say(f"this is your seat's copy: {hidden['concealed']} line(s) hold fields hidden from you as "
            f"commitments; 'warlog verify {output}' checks it offline, and the umpire's export opens "
            "every commitment", file=sys.stderr)
    elif hidden["redacted"]:
        redacted = hidden["redacted"]
        say(f"this is your seat's copy: {redacted} line(s) hidden from you are redacted (\"redacted\": true), "
            f"so 'warlog verify {output}' will not verify them. The exact, verifiable log is the "
            f"umpire's, once the seats agree to one ('warlog umpire-propose {game_id} NAME', then every "
            f"seat 'warlog umpire-answer {game_id} --accept'): 'warlog umpire-token {game_id}' (with the "
            "admin token), then export again with --token UMPIRE_TOKEN", file=sys.stderr)
    else:
        say(f"nothing in it is redacted: 'warlog verify {output}' checks it offline", file=sys.stderr)


def _not_utf8(path: str) -> UsageError:
    """A file given as an export that is not text (a binary file given by mistake)."""
    return UsageError(f"{path} is not UTF-8 text: an export is JSON Lines in UTF-8, as 'warlog export' writes it")


def cmd_import(args: argparse.Namespace) -> int:
    from domain.errors import WarlogError
    from projections.runner import check_foldable

    service = _service()
    try:
        with open(args.file, encoding="utf-8") as fh:
            game_id = service.import_lines(fh, check=check_foldable)
    except UnicodeDecodeError:
        raise _not_utf8(args.file) from None
    except WarlogError:
        raise  # the file refused (it does not verify, its game is stored already): said as it is
    except Exception:
        _no_tables(service)  # a store 'warlog migrate' never made is named, not met as a database traceback
        raise
    say(f"imported game {game_id}")
    return EXIT_OK


def cmd_verify(args: argparse.Namespace) -> int:
    from domain.verify import verify_head, verify_text

    try:
        with open(args.file, encoding="utf-8") as fh:
            report, _ = verify_text(fh)
    except UnicodeDecodeError:
        raise _not_utf8(args.file) from None
    if args.head is not None:
        head = _kept_head(args.head)
        verify_head(report, head, args.server_key or report.server_key)  # read as a line is: a key twice fails
        report.failures.sort(key=lambda f: f[0])
        if report.ok:
            seq = json.loads(head)["seq"]
            say(f"kept head: line {seq} is signed by the server key and the file's line {seq} has its hash")
    for line in report.summary().splitlines():
        say(line)
    return EXIT_OK if report.ok else EXIT_FAILED


def _kept_head(given: str) -> str:
    """``--head``: a signed head as JSON text, or the name of a file holding one; its JSON text,
    which ``verify_head`` reads as it reads a line of the file."""
    text = given
    if not given.lstrip().startswith("{"):
        try:
            with open(given, encoding="utf-8") as fh:
                text = fh.read()
        except (OSError, UnicodeDecodeError) as exc:  # a binary file is not readable as a head either
            raise UsageError(f"--head {given!r} is neither a signed head's JSON nor a readable file: {exc}") from None
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        raise UsageError("--head is not JSON: give a signed head {game, seq, hash, signature} "
                         "('warlog heads GAME' prints the last one kept)") from None
    return text


def cmd_heads(args: argparse.Namespace) -> int:
    """The last signed head this machine received for a game (kept by join and order)."""
    session = Session(args)
    game_id = session.game_id(args.game_id, ask_server=False)
    head = session.entry(game_id).get("signed_head")
    if not head:
        raise UsageError(f"no signed head kept for game {game_id} in {session.path}")
    print(json.dumps(head, sort_keys=True))
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    """Verify a stored log; a failure is recorded and stops the game until an operator accepts
    it (``--accept-damage REASON``, docs/operations.md)."""
    service, where = _local_store()
    game_id = _stored_game_id(service, where, args.game_id)
    report = service.check_integrity(game_id)
    for line in report.summary().splitlines():
        say(line)
    if args.accept_damage is not None:
        if service.damage.of(game_id).open:
            damage = service.accept_damage(game_id, args.accept_damage)
            say(f"accepted by the operator: line(s) {', '.join(str(d.seq) for d in damage.lines)} "
                f"({args.accept_damage.strip()}); the game takes orders again")
        else:
            say("nothing to accept: no damaged line of this game waits for a decision")
    damage = service.damage.of(game_id)
    if damage.open:
        say(f"DAMAGED: the game takes no orders until an operator acts (first line {damage.open[0].seq}); "
            f"warlog check {game_id} --accept-damage REASON plays on from the stored log")
    return EXIT_OK if report.ok else EXIT_FAILED


def cmd_copy_store(args: argparse.Namespace) -> int:
    """Copy this machine's whole store into an empty PostgreSQL schema, its games still playable
    there (api/copystore.py, docs/operations.md "Moving a store to PostgreSQL")."""
    from api.copystore import CopyRefused, copy_store, where as named
    from api.serverkey import key_path
    from domain.errors import GameNotFound
    from domain.storage import config_from_env

    try:
        target = config_from_env({"WARLOG_DATABASE_URL": args.to})
    except ValueError as exc:  # not a postgresql:// URL, or a bad setting of the environment
        raise UsageError(f"--to: {exc} (e.g. postgresql://USER@HOST/DB?schema=NAME)") from None
    try:
        service, where = _local_store("give the store to copy with WARLOG_DATA_DIR or WARLOG_DATABASE_URL")
    except GameNotFound as exc:
        raise UsageError(str(exc)) from None
    try:
        say(f"copying {where} to {named(target)}", file=sys.stderr)
        report = copy_store(service, target, lambda line: say(line, file=sys.stderr, flush=True))
    except CopyRefused as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:  # the store or the target failed midway: said, with what to do, not a traceback
        from domain.storage import error_line

        say(f"warlog copy-store: the copy stopped ({error_line(exc)}); the source is as it was: drop the "
            "target's schema (DROP SCHEMA NAME CASCADE), make it again and copy again", file=sys.stderr)
        return EXIT_FAILED
    finally:
        service.close()
    say(f"{'table':<32} {'source':>10} {'target':>10}")
    for table, source_rows, target_rows in report.counts:
        mark = "" if source_rows == target_rows else "  DIFFERS"
        say(f"{table:<32} {source_rows:>10} {target_rows:>10}{mark}")
    say(f"games checked on the target: {report.games}, {len(report.damaged)} failing")
    for game_id, failure in report.damaged:
        say(f"  {game_id}: {failure}")
    say(f"the server key stays at {key_path(None, service.config)}: run the services on the target with "
        "WARLOG_DATABASE_URL set to it and the same WARLOG_DATA_DIR (or WARLOG_SERVER_KEY_FILE)")
    say("OK" if report.ok else "NOT OK: the target differs from the source; drop its schema and copy again")
    return EXIT_OK if report.ok else EXIT_FAILED


def cmd_status(args: argparse.Namespace) -> int:
    """Is every process that follows the log doing its work? The log's head, where the projector
    and the dispatcher are in it (a follower whose first unread event waits longer than
    --stalled-after is stalled: not running, or failing), and rq's queues and workers. Exit 1
    when a follower is stalled, Redis does not answer or a queue has no worker (workers/status.py)."""
    from datetime import datetime, timezone

    from workers import notify_jobs, status
    from workers.queue import redis_url

    if not args.stalled_after > 0:
        raise SystemExit("warlog status: --stalled-after must be a number of seconds above 0")
    service, where = _local_store("no service has stored anything there yet: "
                                  "run it where the service runs, or with its WARLOG_DATA_DIR or WARLOG_DATABASE_URL")
    try:
        head, followers = status.followers(service, datetime.now(timezone.utc), args.stalled_after)
    finally:
        service.close()
    needed = [os.environ.get("WARLOG_QUEUE", "").strip() or "warlog", notify_jobs.queue_name()]
    url = redis_url()
    if not os.environ.get("REDIS_URL", "").strip():  # `make run` beside: its embedded Redis
        from domain.storage import data_dir_from_env
        from workers.stack import running_url

        url = running_url(data_dir_from_env(os.environ)) or url
    shown = _without_password(url)
    try:
        from redis import Redis

        conn = Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)  # a status answers, not hangs
        found = status.Status(where, head, followers, status.queues(conn, shown, needed, [notify_jobs.webhook_queue_name()]))
    except ValueError as exc:  # a REDIS_URL redis-py cannot read
        found = status.Status(where, head, followers, status.Queues(shown, False, error=str(exc)))
    if args.json_out:
        _print_json(found.as_dict())
        return EXIT_OK if found.ok else EXIT_FAILED
    say(f"store: {where}, {head} events in the log")
    for f in followers:
        if not f.behind:
            say(f"{f.name}: at {f.position}, caught up")
            continue
        line = f"{f.name}: at {f.position}, {f.behind} behind"
        if f.waiting_seconds is not None:
            line += f"; the first of them was recorded {_duration(f.waiting_seconds)} ago"
        say(line)
        if f.stalled:
            say(f"  STALLED: it did not move in {status.PAUSE:.0f} s; is `{f.command}` running? "
                "(if it is, its log says why it fails)")
        elif f.moving:
            say("  catching up: it moved while we looked")
    q = found.queues
    if not q.answered:
        say(f"redis ({q.url}): does not answer ({q.error})")
    else:
        say(f"redis ({q.url}):")
        for queue in q.queues:
            say(f"  queue {queue.name}: {queue.queued} waiting, {queue.failed} failed, "
                f"{queue.workers} worker{'' if queue.workers == 1 else 's'}"
                + ("" if queue.served else f"; NO WORKER: start `{_worker_command(queue.name, needed)}`"))
        for w in q.workers:
            say(f"  worker {w['name']} on {', '.join(w['queues'])}: {w['state']}")
    say("ok" if found.ok else "NOT OK")
    return EXIT_OK if found.ok else EXIT_FAILED


def _worker_command(queue: str, needed: list[str]) -> str:
    return "warlog worker" if queue in needed else "warlog worker --webhooks"


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _without_password(url: str) -> str:
    """``url`` with any password in it replaced by ***: a status is pasted into tickets."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        user = parts.username or ""
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
        return urlunsplit(parts._replace(netloc=f"{user}:***@{host}{port}"))
    except ValueError:
        return "(REDIS_URL, unreadable)"


def cmd_rules(args: argparse.Namespace) -> int:
    """A ruleset's rules coverage (docs/rulesets.md): every rule number of its text with its
    status, and the counts per status; read from the domain package, no server needed."""
    from domain.rulesets import find_ruleset
    from domain.rulesets.toolkit import coverage

    ruleset = find_ruleset(args.ruleset)
    summary = coverage.summary(ruleset.coverage())
    if args.json_out:
        _print_json(summary)
        return EXIT_OK
    say(f"{ruleset.name}: {ruleset.title}")
    say(f"text: {summary['text']}; rule numbers: {summary['rule_numbers']}")
    width = max((len(key) for part in ("rules", "tables") for key in summary[part]), default=0)
    for part in ("rules", "tables"):
        if summary[part]:
            say("")
            say(f"{part}:")
        for key, item in summary[part].items():
            tests = item.get("tests", [])
            note = item.get("why") or item.get("what") or ""
            if tests:
                note = f"{len(tests)} test{'s' if len(tests) != 1 else ''}" + (f"; {note}" if note else "")
            say(f"  {key:<{width}} {item['status']:<15} {note}")
            if args.tests:
                for test in tests:
                    say(f"{'':<{width + 19}}{test}")
    say("")
    for part in ("rules", "tables"):
        counts = summary["counts"][part]
        say(f"{part}: {sum(counts.values())} in all; " + ", ".join(f"{status} {n}" for status, n in counts.items()))
    return EXIT_OK


# ===================================================================== playing through the API ====
# The client commands talk to a warlog server over HTTP (api/client.py). Where the server and
# the tokens come from, first found wins:
#   server: --server, WARLOG_SERVER, the server saved with the game, the config file's "server"
#   token:  --token, WARLOG_TOKEN, the token saved with the game (--as SEAT picks a seat's)
# The config file (WARLOG_CLIENT_CONFIG, default ~/.config/warlog/client.json, mode 0600) is
#   {"server": URL, "games": {game_id: {"server", "seat", "token", "seats": {seat: token},
#                                       "admin_token", "invites", "umpire_token"}}}

DEFAULT_CONFIG = "~/.config/warlog/client.json"


class UsageError(Exception):
    """A client command cannot run as given (no server, no token, a bad argument): exit 2."""


def _poll_seconds(name: str, default: float, command: str) -> float:
    """A poll interval from the environment, read before the process waits for anything: a value
    that is not a number of seconds above 0 stops ``warlog COMMAND`` at once, naming it."""
    from domain.storage import seconds_from_env

    try:
        return seconds_from_env(name, default, above_zero=True)
    except ValueError as exc:
        raise SystemExit(f"warlog {command}: {exc}") from None


def cmd_projector(args: argparse.Namespace) -> int:
    """Keep every read model current: catch up, sleep WARLOG_PROJECTOR_POLL_SECONDS, repeat;
    SIGTERM or SIGINT stops it between batches."""
    import logging
    import signal

    from projections.runner import Projections, Projector

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    poll = _poll_seconds("WARLOG_PROJECTOR_POLL_SECONDS", 0.5, "projector")
    service = _service_when_up()
    from api.app import wait_for_schema

    wait_for_schema(service)
    projector = Projector(Projections(service), poll)
    signal.signal(signal.SIGTERM, projector.stop)
    signal.signal(signal.SIGINT, projector.stop)
    try:
        projector.run()
    finally:
        service.close()
    return EXIT_OK


def _worker_settings(command: str) -> tuple[bool, int, float]:
    """The settings of the workers and the dispatcher, read once at start: one environment serves
    every process, so a malformed value stops each of them at once (before it waits for the
    database or touches Redis), not each delivery or game's end later. Returns replay-on-end, the
    digest hour and the clock sweep's interval."""
    from workers import jobs, notify, notify_jobs, queue
    from workers.clock import sweep_seconds
    from workers.webhook_target import Allow

    try:
        Allow.from_env()
        queue.job_timeout(), queue.retry_policy(), jobs.artifact_limits()
        notify.retry_intervals(), notify.SmtpSettings.from_env(), notify_jobs.webhook_timeout()
        return jobs.replay_on_end(), notify_jobs.digest_hour(), sweep_seconds()
    except ValueError as exc:
        raise SystemExit(f"warlog {command}: {exc}") from None


def cmd_worker(args: argparse.Namespace) -> int:
    """An rq worker on the configured Redis (REDIS_URL) for the warlog queues, with the scheduler
    (retries with backoff are scheduled). With --webhooks, a worker for the webhook queue only
    (WARLOG_WEBHOOK_QUEUE), so slow receivers hold up no other job.

    It runs no thread of its own: rq forks a child for each job, and a fork taken while another
    thread is inside SQLite can leave the child waiting for ever on a mutex it inherited locked.
    The dispatcher and the clock sweep are ``warlog dispatcher``, a process of their own."""
    import logging

    from rq import Queue, Worker

    from workers import notify_jobs

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    _worker_settings("worker")
    conn = notify_jobs.redis_connection()
    if args.webhooks:
        names = [notify_jobs.webhook_queue_name()]
    else:
        names = args.queues or list(dict.fromkeys(
            [os.environ.get("WARLOG_QUEUE", "").strip() or "warlog", notify_jobs.queue_name()]))
    worker = Worker([Queue(n, connection=conn) for n in names], connection=conn)
    worker.work(burst=args.burst, with_scheduler=True, logging_level="INFO")
    return EXIT_OK


def cmd_dispatcher(args: argparse.Namespace) -> int:
    """The notification dispatcher (notifications, and the replays of a game that ends:
    workers/dispatch.py) and the clock sweep of the time controls (workers/clock.py, a thread
    beside it). Several may run; they do not conflict. SIGTERM or SIGINT stops both."""
    import logging
    import threading

    from workers import jobs, notify_jobs
    from workers import queue as rqueue
    from workers.clock import ClockSweep
    from workers.dispatch import Dispatcher
    from workers.notify import SmtpSettings

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    replays, digest_hour, every = _worker_settings("dispatcher")
    poll = _poll_seconds("WARLOG_DISPATCH_POLL_SECONDS", 1.0, "dispatcher")
    conn = notify_jobs.redis_connection()
    service = _service_when_up()
    from api.app import wait_for_schema

    wait_for_schema(service)
    jobs_queue, directory = rqueue.get_queue(conn), str(jobs.artifact_dir())

    def queue_replays(game_id: str, version: int) -> None:
        jobs.enqueue_replays(jobs_queue, game_id, version, directory)

    dispatcher = Dispatcher(service, notify_jobs.enqueuer(conn), email_enabled=SmtpSettings.from_env() is not None,
                            on_end=queue_replays if replays else None, digest_hour=digest_hour)
    sweeper = ClockSweep(service) if every else None  # 0: no clock sweep here
    sweeping = threading.Thread(target=sweeper.run, args=(every,), name="warlog-clock", daemon=True) if sweeper else None

    def stop(*_: object) -> None:
        dispatcher.stop()
        if sweeper is not None:
            sweeper.stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if sweeping is not None:
        sweeping.start()
    try:
        dispatcher.run(poll)
    finally:
        stop()
        if sweeping is not None:
            sweeping.join(timeout=30)
        service.close()
    return EXIT_OK


def cmd_rebuild_projections(args: argparse.Namespace) -> int:
    """Drop the read models (of one game with --game) and fold them again from the log."""
    from projections.runner import ProgressBar, Projections

    service = _service()
    bar = ProgressBar(sys.stderr, what="events" if args.game else "notifications")
    try:
        done = Projections(service).rebuild(args.game, progress=bar)
    finally:
        bar.close()
        service.close()
    what = f"game {args.game}: {done} events" if args.game else f"{done} notifications"
    print(f"rebuilt the projections from the log ({what})", file=sys.stderr)
    return EXIT_OK


def config_path() -> str:
    return os.path.expanduser(os.environ.get("WARLOG_CLIENT_CONFIG") or DEFAULT_CONFIG)


def load_config(path: str | None = None) -> dict:
    path = path or config_path()
    try:
        with open(path, encoding="utf-8") as fh:
            config = json.load(fh)
    except FileNotFoundError:
        return {"games": {}}
    except ValueError as exc:
        raise UsageError(f"{path} is not valid JSON ({exc}); fix or remove it") from None
    if not isinstance(config, dict) or not isinstance(config.get("games", {}), dict):
        raise UsageError(f"{path} is not a warlog client config (an object with \"games\")")
    config.setdefault("games", {})
    for game_id, entry in config["games"].items():  # a file edited by hand: said here, not as a traceback
        if not isinstance(entry, dict) or not isinstance(entry.get("server", ""), str):
            raise UsageError(f"{path}: game {game_id} is not a saved game (an object whose \"server\" is a URL); "
                             "fix or remove it")
    return config


def save_config(config: dict, path: str | None = None) -> str:
    """Write the config atomically, readable by its owner only: it holds tokens."""
    path = path or config_path()
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, mode=0o700, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".client-", suffix=".json", dir=folder)  # created 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(config, fh, indent=2, sort_keys=True)
            fh.write("\n")
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def _saved_game_id(given: str) -> str:
    """A local command's game id: a prefix of a game saved in the client config file works too."""
    try:
        session = Session(argparse.Namespace())
    except UsageError:
        return given  # a broken client config does not stop a local command
    return session.game_id(given, ask_server=False)


GAME_ID_HELP = ("the game's id, or the start of one (4 characters or more) saved in the config file "
                "or listed to you by the server")
STORED_PREFIX = 8  # hex digits of a stored game's id an operator command needs, at least


def _stored_game_id(service, where: str, given: str) -> str:
    """An operator command's game id: a whole id, the start of one saved in the client config
    (``_saved_game_id``), or the start (``STORED_PREFIX`` hex digits or more) of one game id of
    this machine's store."""
    game_id = _saved_game_id(given)
    try:
        return str(uuid.UUID(game_id))
    except ValueError:
        pass
    from domain.errors import GameNotFound

    if len(given.replace("-", "")) < STORED_PREFIX:
        raise UsageError(f"{given!r} is not a game id: give the whole id, or its first {STORED_PREFIX} hex digits "
                         "or more")
    matches = service.game_ids_starting(given)
    if len(matches) > 1:
        raise _ambiguous(given, matches, whole=True)
    if not matches:
        raise GameNotFound(f"no game id in {where} starts with {given!r}")
    return matches[0]


def _ambiguous(given: str, matches: list[str], *, whole: bool = False) -> UsageError:
    """The error for a start of an id that several games share, naming them (``whole``: in full)."""
    named = ", ".join(m if whole else m[:13] + "…" for m in matches)
    return UsageError(f"{given!r} starts {len(matches)} game ids ({named}); give more of it")


def _server_from_env_or_option(args: argparse.Namespace) -> str | None:
    return getattr(args, "server", None) or os.environ.get("WARLOG_SERVER") or None


class Session:
    """One client command's view of the options, the environment and the config file."""

    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.path = config_path()
        self.config = load_config(self.path)

    # ------------------------------------------------------------------------------ games --
    def game_id(self, given: str, *, ask_server: bool = True) -> str:
        """The canonical id: a full UUID as the server writes it, or the one game id that starts
        with ``given`` (at least 4 characters): among the saved games, else (``ask_server``)
        among those the server lists to this caller (public games and the token's)."""
        try:
            return str(uuid.UUID(given))
        except ValueError:
            pass
        matches = [g for g in self.config["games"] if g.startswith(given.lower())] if len(given) >= 4 else []
        if not matches and ask_server and self._has_server():
            from api.client import ClientError

            try:
                listed = self.client(None, need="read").all_games().get("games") or []
            except ClientError:
                listed = []
            matches = sorted({g["game_id"] for g in listed if str(g.get("game_id", "")).startswith(given.lower())})
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise _ambiguous(given, matches)
        if not ask_server:
            return given  # a local command: the store says "no game" and where it looked
        listed = f" or listed by {_server_from_env_or_option(self.args) or self.config['server']}" \
            if self._has_server() else ""
        raise UsageError(f"{given!r} is not a game id, nor the start (4 characters or more) of one saved in "
                         f"{self.path}{listed}: give the whole id")

    def _has_server(self) -> bool:
        return bool(_server_from_env_or_option(self.args) or self.config.get("server"))

    def entry(self, game_id: str | None) -> dict:
        return self.config["games"].get(game_id, {}) if game_id else {}

    def remember(self, game_id: str, **fields) -> str:
        if fields.get("server") and not self.config.get("server"):
            self.config["server"] = fields["server"]  # the first server used becomes the default
        entry = self.config["games"].setdefault(game_id, {})
        for key, value in fields.items():
            if isinstance(value, dict) and isinstance(entry.get(key), dict):
                entry[key].update(value)
            elif value is not None:
                entry[key] = value
        return save_config(self.config, self.path)

    # ----------------------------------------------------------------------------- access --
    def server(self, game_id: str | None = None) -> str:
        server = (_server_from_env_or_option(self.args) or self.entry(game_id).get("server")
                  or self.config.get("server"))
        if not server:
            raise UsageError("no server: give --server URL, set WARLOG_SERVER, or put "
                             f"\"server\" in {self.path}")
        return server

    def token(self, game_id: str | None, need: str) -> str | None:
        """``need``: "seat" (orders), "admin" (umpire tokens), "write" (annotations: a seat's, the
        umpire's or a spectator token) or "read" (any token, or none)."""
        given = getattr(self.args, "token", None) or os.environ.get("WARLOG_TOKEN")
        if given:
            return given
        entry = self.entry(game_id)
        if need == "admin":
            token = entry.get("admin_token")
            if not token:
                raise UsageError(f"no admin token saved for game {game_id}: give --token "
                                 "(the admin token printed by 'warlog new')")
            return token
        seat = getattr(self.args, "as_seat", None)
        if seat:
            token = (entry.get("seats") or {}).get(seat)
            if not token:
                raise UsageError(f"no token saved for seat {seat} of game {game_id}")
            return token
        token = entry.get("token")
        if need == "write":
            token = token or entry.get("umpire_token") or entry.get("spectator_token")
            if not token:
                raise UsageError(f"no seat, umpire or spectator token saved for game {game_id}: join it, or ask "
                                 "its admin for a spectator token ('warlog spectator-token'), or give --token")
            return token
        if token or need == "seat":
            if not token:
                raise UsageError(f"no seat token for game {game_id}: join it first ('warlog join'), "
                                 "or give --token / set WARLOG_TOKEN")
            return token
        return entry.get("umpire_token") or entry.get("admin_token")  # reads: any token, or none

    def client(self, game_id: str | None = None, need: str = "read"):
        from api.client import WarlogClient

        return WarlogClient(self.server(game_id), self.token(game_id, need) if need else None,
                            timeout=getattr(self.args, "timeout", None) or 30.0, on_damaged=_warn_damaged)


def _warn_damaged(line: str) -> None:
    """A read of a game whose stored log fails verification says so, once per command."""
    if not _warned:
        _warned.append(line)
        print(f"warning: this game's stored log fails verification at line {line}; it takes no orders "
              "until an operator acts (warlog check GAME)", file=sys.stderr)


_warned: list[str] = []


# ------------------------------------------------------------------------------- output ----
# Stored text (notes, purposes, reasons, handles, side names) comes from other players: printed
# raw, an escape sequence, a carriage return or a bidi override could fake lines in this
# terminal. Every human-readable line goes through ``say``, which shows such characters as
# visible escapes (\x1b, U+202E); JSON output escapes them as \uXXXX, which decodes the same.
_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_UNSAFE = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{_BIDI}]")
_JSON_UNSAFE = re.compile(f"[\x7f-\x9f\u2028\u2029{_BIDI}]")  # json.dumps escapes C0 itself


def _visible(ch: str) -> str:
    return f"\\x{ord(ch):02x}" if ord(ch) < 0xA0 else f"U+{ord(ch):04X}"


def terminal_safe(text) -> str:
    """``text`` with C0/C1 controls (newlines too), line separators and bidi controls shown
    as visible escapes: one printed line stays one line, written left to right."""
    return _UNSAFE.sub(lambda m: _visible(m.group()), str(text))


def say(text="", *, file=None, flush: bool = False) -> None:
    """Print one human-readable line, terminal-safe."""
    print(terminal_safe(text), file=file, flush=flush)


def _json_text(body, **kwargs) -> str:
    """JSON whose strings hold no raw control or bidi character (escaped as \\uXXXX)."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(body, ensure_ascii=False, **kwargs))


def _print_json(body) -> None:
    print(_json_text(body, indent=2))


def _event_line(line: dict) -> str:
    return f"#{line.get('seq', '?')} {line.get('text') or line.get('type', '')}"


def _print_result(result: dict, what: str = "") -> None:
    """A command's recorded events, then the version and chain head to compare with the others."""
    if result.get("replayed"):
        recorded = f"order {result['order_id']}" if result.get("order_id") else "this command, under its key,"
        say(f"(replayed: {recorded} was recorded before; nothing new was recorded)")
    elif what:
        say(what)
    for line in result.get("events") or []:
        say("  " + _event_line(line))
    say(f"version {result.get('version')}, chain head {result.get('chain_head')}")


def _emit(args: argparse.Namespace, body, human) -> int:
    if getattr(args, "json", None):
        _print_json(body)
    else:
        human(body)
    return EXIT_OK


def _value(raw: str):
    """An option value: JSON when it parses (numbers, true, lists), else a comma list, as
    ``new --help`` says: one name without a comma is a list of one (``sides=Blue``, FF 1)."""
    try:
        return json.loads(raw)
    except ValueError:
        pass
    return [part.strip() for part in raw.split(",") if part.strip()]


def _pairs(items: list[str] | None, what: str, *, split_commas: bool = True) -> dict:
    out = {}
    for item in items or []:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"{what} takes KEY=VALUE, not {item!r}")
        if split_commas:
            out[key.strip()] = _value(raw)
        else:
            try:
                out[key.strip()] = json.loads(raw)
            except ValueError:
                out[key.strip()] = raw
    return out


def _json_object(raw: str, what: str) -> dict:
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise UsageError(f"{what} is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise UsageError(f"{what} must be a JSON object ({{...}})")
    return value


# ----------------------------------------------------------------------------- commands ----
def cmd_new(args: argparse.Namespace) -> int:
    session = Session(args)
    options = _json_object(args.options, "--options") if args.options else {}
    options.update(_pairs(args.option, "--option"))
    client = session.client(None, need=None)
    created = client.create_game(args.ruleset, options, scenario=args.scenario, public=args.public,
                                 umpire=args.umpire, position=args.position, time_control=_time_control(args))
    return _created(args, session, client, created, args.ruleset)


def _time_control(args: argparse.Namespace) -> dict | None:
    """``new``'s time control (docs/api.md, "Time control") from its flags; None without --days."""
    if args.days is None:
        if args.per or args.reminder or args.vacation_days is not None or args.on_timeout:
            raise UsageError("a time control starts with --days N (days per move or turn)")
        return None
    control: dict = {"days": args.days}
    if args.per:
        control["per"] = args.per
    if args.reminder:
        control["reminders"] = args.reminder
    if args.vacation_days is not None:
        control["vacation_days"] = args.vacation_days
    if args.on_timeout:
        control["on_timeout"] = args.on_timeout
    return control


def cmd_sandbox(args: argparse.Namespace) -> int:
    """A sandbox of a game from its state right after event --at, forked with the saved token."""
    session = Session(args)
    source = session.game_id(args.game_id)
    client = session.client(source, "read")
    created = client.fork_sandbox(source, args.at, public=args.public, umpire=args.umpire)
    ruleset = session.entry(source).get("ruleset") or client.game(source).get("ruleset")
    return _created(args, session, client, created, ruleset, f"a sandbox of {source} from event {args.at}, ")


def _created(args: argparse.Namespace, session: Session, client, created: dict, ruleset: str,
             what: str = "") -> int:
    """Print a new game's seats, invites and admin token, and save them in the config file."""
    from api.client import promised

    game_id = promised(created, "game_id")

    base = client.base_url.removesuffix('/api/v1')

    def human(body: dict) -> None:
        say(f"game {game_id} ({what}{ruleset}, {'public' if args.public else 'private'})")
        say(f"seats: {', '.join(body.get('seats') or [])}")
        say(f"admin token: {body.get('admin_token')}")  # the answer's order (docs/api.md)
        for seat, code in (body.get("invites") or {}).items():
            say(f"invite for {seat}: {code}")
        say(f"version {body.get('version')}, chain head {body.get('chain_head')}")
        invites = list(body.get("invites") or {})
        if len(invites) == 1:  # a solitaire game (STF): its player most likely ran 'new' here
            say(f"one seat, {invites[0]}: take it here with: warlog join {game_id} --as {invites[0]} --handle NAME "
                f"(this machine saved its invite); from another machine: warlog join {game_id} INVITE "
                f"--handle NAME --server {base}")
            say("or open its invite link in a browser (or give it to 'warlog join LINK --handle NAME'):")
        else:
            say(f"each player joins from their own machine with: warlog join {game_id} INVITE --handle NAME "
                f"--server {base}")
            say(f"(several seats on this machine: warlog join {game_id} --as SEAT --handle NAME, "
                "which takes the seat's saved invite)")
            say("or send each player their seat's invite link, which a browser opens to join (and "
                "'warlog join LINK --handle NAME' takes too):")
        for seat, code in (body.get("invites") or {}).items():
            say(f"  {seat}: {base}/games/{game_id}#invite={code}")

    # Saved before anything is printed, so an output that goes away early loses no token or invite.
    path = _save_or_warn(session, game_id, server=client.base_url, ruleset=ruleset,
                         admin_token=promised(created, "admin_token"), invites=promised(created, "invites", dict))
    _emit(args, created, human)
    if path and not args.json:
        say(f"saved the invite codes and the admin token to {path}")
    return EXIT_OK if path else EXIT_USAGE


def cmd_kinds(args: argparse.Namespace) -> int:
    """The kinds of order a ruleset takes, as the server's ruleset lists them (GET /rulesets/<name>)."""
    client = Session(args).client(None, need=None)
    body = client.ruleset(args.ruleset)

    def human(b: dict) -> None:
        say(f"{b.get('name')}: {b.get('title')}")
        kinds = b.get("order_kinds") or []
        if not kinds:
            say("this ruleset lists no order kinds: ask 'warlog legal GAME' during a game")
        for entry in kinds:
            when = "".join(f" {k}={_compact(v)}" for k, v in (entry.get("when") or {}).items())
            say(f"{entry.get('kind')}{when} ({entry.get('rule')}) — {entry.get('help')}")
            for name, text in (entry.get("fields") or {}).items():
                say(f"  {name}: {text}")
            words = " ".join(w.upper() for w in entry.get("words") or [])
            say(f"  warlog order GAME {entry.get('kind')}" + (f" {words}" if words else ""))

    return _emit(args, body, human)


def _save_or_warn(session: Session, game_id: str, **fields) -> str | None:
    try:
        return session.remember(game_id, **fields)
    except OSError as exc:
        say(f"warlog {session.args.command}: could not save to {session.path}: {exc}; "
              "keep the codes and tokens printed here", file=sys.stderr)
        return None


def _from_invite_link(args: argparse.Namespace) -> str | None:
    """A join given the invite link (as the game id, or as the invite) takes the game id, the code
    and, unless --server names one, the server from it; returns the link's server. A link whose
    host follows 'user@' is refused: it reads as the name before the '@' and goes to the one after."""
    from api.client import INVITE_LINK, LINK_WITH_USER

    for given in (args.game_id, args.invite):
        link = INVITE_LINK.match(given or "")
        if link:
            server = link.group(1)
            try:
                where = urllib.parse.urlsplit(server)
            except ValueError as exc:  # an unclosed IPv6 bracket: "http://[::1/games/…"
                raise UsageError(f"the link's server {server} is not a URL ({exc}); ask whoever sent it for "
                                 "the link the lobby or 'warlog new' gave") from None
            if "@" in where.netloc:
                raise UsageError(LINK_WITH_USER.format(server=server, host=where.hostname))
            args.server = args.server or server
            args.game_id = link.group(2)
            args.invite = link.group(3)
            return server
    return None


def _join_server(session: Session, game_id: str, link_server: str | None) -> None:
    """Refuse a join to a server other than the one the game is saved for here: its answer would
    save the new server for the game, and the game's saved tokens (an admin's, a seat's) would go to
    it from then on. Say when a link sends the join to a server other than the one configured."""
    from api.client import api_base

    server = session.server(game_id)
    saved = session.entry(game_id).get("server")
    if saved and api_base(saved) != api_base(server):
        raise UsageError(f"game {game_id} is saved in {session.path} as on {saved}, and this join would go to "
                         f"{server}: its answer would send the game's saved tokens there. Join on {saved} "
                         f"(warlog join {game_id} INVITE --server {saved}, or --as SEAT for an invite saved here)")
    if link_server and api_base(server) != api_base(link_server):
        say(f"joining on {server} (--server), not {link_server}, the link's server", file=sys.stderr)
        return
    default = os.environ.get("WARLOG_SERVER") or session.config.get("server")
    if link_server and default and api_base(default) != api_base(server):
        say(f"joining on {server}, the link's server, not {default}, the one configured", file=sys.stderr)


def _canonical_id(game_id: str) -> str:
    """A game id as the server writes it (lowercase, with hyphens), which a signature names."""
    try:
        return str(uuid.UUID(game_id))
    except ValueError:
        return game_id


def cmd_join(args: argparse.Namespace) -> int:
    link_server = _from_invite_link(args)
    session = Session(args)
    game_id = session.game_id(args.game_id)
    invite = args.invite or _saved_invite(session, game_id, args.as_seat)
    try:
        client = session.client(game_id, need=None)
    except UsageError:
        raise UsageError(f"no server for game {game_id} here: give the server the game is on, "
                         "--server URL (whoever created the game knows it; 'warlog new' printed it)") from None
    _join_server(session, game_id, link_server)
    notify = None if args.notify is None else args.notify
    from domain import signatures

    from api.client import ConnectionFailed, ProblemError, UnexpectedAnswer, promised

    # The join's Idempotency-Key and the seat's signing key are kept before the join is sent: when
    # its answer is lost, the same 'warlog join' run again sends them again and gets a fresh token.
    pending_joins = session.entry(game_id).get("pending_joins") or {}
    invite_id = hashlib.sha256(invite.encode()).hexdigest()[:16]  # names the invite, never shows it
    pending = pending_joins.get(invite_id) or {}
    if pending.get("no_key") != bool(args.no_key):
        pending = {}
    # Kept from an earlier run: that join may have been recorded and this is its replay, which a keyed
    # seat signs (docs/api.md, "Idempotency"); a first send is not signed, so that one leaked (a
    # pasted log) does not carry what takes the seat's token again.
    again = bool(pending)
    if not pending:
        key = None if args.no_key else signatures.new_private_key()  # signs every order of the seat
        pending = {"join_key": str(uuid.uuid4()), "no_key": bool(args.no_key),
                   "signing_key": signatures.private_key_text(key) if key is not None else None}
        _save_or_warn(session, game_id, pending_joins={invite_id: pending})
    key = None if pending["signing_key"] is None else signatures.private_key_from_text(pending["signing_key"])
    try:
        joined = client.join(game_id, invite, args.handle, email=args.email, notify=notify,
                             client_seed=args.client_seed, join_key=pending["join_key"],
                             public_key=signatures.public_key_of(key) if key is not None else None,
                             signature=signatures.sign_join_again(key, _canonical_id(game_id), pending["join_key"])
                             if again and key is not None else None)
    except ConnectionFailed as exc:
        raise ConnectionFailed(f"{exc}; the join may or may not be recorded: run the same 'warlog join' again "
                               "within 60 minutes of the join, which sends the same join key and gets the seat "
                               "a fresh token") from None
    except ProblemError as exc:
        held = _already_held(session, game_id, exc.body.get("seat")) if exc.code == "invite_used" else None
        if held:  # this machine joined that seat already: nothing to join, only to play
            raise ProblemError(exc.status, exc.code, f"{exc.detail}; {held}", exc.rule, exc.body, exc.headers) from None
        raise

    seat, token, joined_id = promised(joined, "seat"), promised(joined, "token"), promised(joined, "game_id")
    if joined_id != game_id:  # saved, the answer would point that game (maybe one saved here) at this server
        raise UnexpectedAnswer(f"POST /games/{game_id}/join", f"it joined another game, {joined_id}, than the one "
                                                             f"asked; nothing was saved")

    def human(body: dict) -> None:
        say(f"joined game {joined_id} as {seat} ({args.handle})")
        if args.as_seat and args.as_seat != seat:
            say(f"note: the invite was for {seat}, not {args.as_seat}; its token is saved as {seat}'s")
        say(f"version {body.get('version')}, chain head {body.get('chain_head')}")
        if body.get("confirmation_mail"):
            say(f"a confirmation mail went to {args.email}: turn mails start once its link is followed")
        if path is None:  # not saved: the token is shown nowhere else
            say(f"the {seat} token (keep it, give it with --token): {token}")

    # Saved before anything is printed: the token is shown nowhere else, so an output that goes
    # away early (warlog join ... | head -1) must not take it with it.
    invites = session.entry(game_id).get("invites") or {}
    if invites.get(seat) == invite:
        del invites[seat]  # used: an invite code admits one player once
    (session.entry(game_id).get("pending_joins") or {}).pop(invite_id, None)  # answered: nothing to send again
    path = _save_or_warn(session, joined_id, server=client.base_url, seat=seat, token=token,
                         handle=args.handle, seats={seat: token},
                         signed_head=_head_to_keep(session, joined_id, joined, replayed=True, server=client.base_url),
                         keys={seat: signatures.private_key_text(key)} if key is not None else None)
    _emit(args, joined, human)
    if path and not args.json:
        say(f"saved the {seat} token to {path}")
    return EXIT_OK if path else EXIT_USAGE


def _already_held(session: Session, game_id: str, seat) -> str | None:
    """What to do when this machine already holds ``seat``'s token for the game (a join of it
    again: its invite is used), or None when it does not."""
    if not isinstance(seat, str) or not (session.entry(game_id).get("seats") or {}).get(seat):
        return None
    return (f"you already hold {seat} in this game: its token is saved in {session.path}, so there is "
            f"nothing to join; play it: warlog legal {game_id} --as {seat} (a token that leaked: "
            f"warlog seat-token {game_id} --as {seat})")


def _saved_invite(session: Session, game_id: str, seat: str | None) -> str:
    """``join GAME --as SEAT``: the invite of SEAT that 'new' saved on this machine."""
    invites = session.entry(game_id).get("invites") or {}
    if not seat:
        saved = " | ".join(f"--as {s}" for s in invites)
        raise UsageError("give the invite code: warlog join GAME INVITE --handle NAME "
                         + (f"(or, for a seat whose invite 'new' saved here: {saved})" if saved
                            else "(or --as SEAT for a seat whose invite 'new' saved here)"))
    if seat not in invites:
        held = _already_held(session, game_id, seat)
        if held:
            raise UsageError(f"no saved invite for seat {seat} of game {game_id}: it was used; {held}")
        saved = ", ".join(invites) or "none"
        raise UsageError(f"no saved invite for seat {seat} of game {game_id} in {session.path} "
                         f"(saved: {saved}); give the invite code")
    return invites[seat]


def cmd_games(args: argparse.Namespace) -> int:
    session = Session(args)
    client = session.client(None, need=None)
    if getattr(args, "token", None) or os.environ.get("WARLOG_TOKEN"):
        client = client.with_token(session.token(None, "read"))
    body = client.all_games(status=args.status, ruleset=args.ruleset, player=args.player, turn_of=args.turn_of,
                            sandbox=args.sandbox)
    body["games"] = (body.get("games") or []) + _saved_games(session, client, body.get("games") or [], args)

    def human(body: dict) -> None:
        games = body.get("games") or []
        if not games:
            say(f"no games: none public on {client.base_url}"
                + (" that match" if (args.status or args.ruleset or args.player or args.turn_of) else "")
                + f", and none saved for it in {session.path}")
        for g in games:
            say(_summary_line(g))

    return _emit(args, body, human)


def _saved_games(session: Session, client, listed: list[dict], args: argparse.Namespace) -> list[dict]:
    """The games saved in the config file for this server that the listing left out (private
    games), each read with its saved token and filtered as the listing would be."""
    from api.client import ClientError

    seen = {g.get("game_id") for g in listed}
    out = []
    for game_id, entry in session.config["games"].items():
        if game_id in seen or (entry.get("server") or session.config.get("server")) != client.base_url:
            continue
        token = entry.get("token") or entry.get("umpire_token") or entry.get("admin_token")
        try:
            g = client.with_token(token).game(game_id)
        except ClientError:
            continue  # gone, or the token no longer works: not listed
        handles = {s.get("handle") for s in g.get("seats") or []}
        moving = {s.get("handle") for s in g.get("seats") or [] if s.get("seat") in (g.get("whose_move") or [])}
        if ((args.status and g.get("status") != args.status) or (args.ruleset and g.get("ruleset") != args.ruleset)
                or (args.player and args.player not in handles) or (args.turn_of and args.turn_of not in moving)
                or (g.get("sandbox") and not args.sandbox)):
            continue
        out.append(g)
    return out


def _summary_line(g: dict) -> str:
    seats = ", ".join(f"{s['seat']}={s.get('handle') or '(open)'}" for s in g.get("seats") or [])
    moving = ", ".join(g.get("whose_move") or []) or "nobody"
    return (f"{g.get('game_id')} {g.get('ruleset')} {g.get('status')}: turn {g.get('turn')}, "
            f"{g.get('phase')} phase, to move: {moving}{_time_left(g.get('clock'))}; seats {seats}; "
            f"version {g.get('version')}")


def time_left_text(seconds: int) -> str:
    """How long is left, in the largest two units: "2 d 3 h", "5 h 10 min", "4 min"."""
    days, rest = divmod(max(0, int(seconds)), 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min"


def _time_left(clock: dict | None) -> str:
    """A summary's clock as the game list says it: ", 2 d 3 h left (by 2026-…)", or the time out."""
    if not clock or not clock.get("deadline"):
        return ""
    if clock.get("timed_out"):
        return f", deadline {clock['deadline']} passed"
    if clock.get("running") is False:  # an imported game: its clock does not run on this server
        return f", deadline {clock['deadline']} (imported: its clock does not run here)"
    return f", {time_left_text(clock.get('seconds_left') or 0)} left (by {clock['deadline']})"


def cmd_show(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    body = session.client(game_id, "read").game(game_id)

    def human(g: dict) -> None:
        say(_summary_line(g))
        if g.get("vp"):
            say(_vp_text(g["vp"], _vp_note(session.client(game_id, "read"), g.get("ruleset"))))
        if g.get("ended"):
            say("ended: " + _ended_text(g["ended"]))
        say(f"chain head {g.get('chain_head')}")

    return _emit(args, body, human)


def _vp_text(vp: dict, note: str | None = None) -> str:
    """"VP: Blue 2, Red 0" for a ruleset with VP per side; "VP: 8 (NOTE)" for one with a single
    track named "VP" (Falklands' signed track, FS 4.1), whose key says nothing more: its ruleset's
    ``vp_note`` says which side the numbers favour."""
    if list(vp) == ["VP"]:
        return f"VP: {vp['VP']}" + (f" ({note})" if note else "")
    return "VP: " + ", ".join(f"{k} {v}" for k, v in vp.items())


def _vp_note(client, ruleset: str | None) -> str | None:
    """The ruleset's ``vp_note`` (GET /rulesets/<name>), or None when it has none or cannot be read."""
    from api.client import ClientError

    try:
        note = (client.ruleset(ruleset) or {}).get("vp_note") if ruleset else None
    except (ClientError, AttributeError):
        return None
    return note if isinstance(note, str) else None


def _ended_text(ended: dict) -> str:
    who = f"{ended['winner']} wins" if ended.get("winner") else "a draw"
    extra = ", ".join(str(ended[k]) for k in ("level", "reason") if ended.get(k))
    return who + (f" ({extra})" if extra else "")


def cmd_legal(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    client = session.client(game_id, "seat")
    body = client.legal_orders(game_id)

    def human(b: dict) -> None:
        summary, names, kinds, take_backs = _game_names_and_kinds(client, game_id)
        orders = b.get("orders") or []
        if summary.get("ended"):
            say(f"the game has ended: {_ended_text(summary['ended'])}; nothing more can be ordered")
            return
        if summary.get("status") == "waiting":  # as an order would be refused now [seats]
            seats = summary.get("seats") or []
            open_ = ", ".join(str(x.get("seat")) for x in seats if isinstance(x, dict) and not x.get("joined"))
            say(f"the game starts when every seat has joined: waiting for {open_ or 'a seat'}")
            return
        asked = _waiting_take_back(client, game_id)
        if asked and asked.get("seat") == b.get("seat"):
            moving = ", ".join(summary.get("whose_move") or []) or "the opponent"
            say(f"{asked.get('seat')} waits for {moving}'s answer to its take-back; or concede: warlog concede {game_id}")
            return
        if asked:  # the game takes no order until this seat answers (Game.whose_move names it meanwhile)
            reason = f": {asked['reason']}" if asked.get("reason") else ""
            say(f"{asked.get('seat')} asks to take back its last order{reason}")
            say(f"  warlog answer-take-back {game_id} --accept   (or --decline)")
            return
        read = _state_body(client, game_id)
        sealing = _sealed_round_of(client, game_id, b.get("seat"), read)
        if sealing and b.get("seat") in (sealing.get("revealed") or []):
            waiting = ", ".join(sealing.get("must_reveal") or []) or "nobody"
            say(f"{b.get('seat')} has revealed its orders for round {sealing.get('round')} (to reveal: {waiting}); "
                f"or concede: warlog concede {game_id}")
            return
        if sealing and b.get("seat") in (sealing.get("committed") or []):
            waiting = ", ".join(sealing.get("must_commit") or []) or "nobody"
            say(f"{b.get('seat')} has sealed its orders for round {sealing.get('round')}: 'warlog reveal {game_id}' "
                f"once every seat has sealed (to seal: {waiting}); or concede: warlog concede {game_id}")
            return
        # the server says whether this seat has an order to take back now (an older one does not:
        # then the ruleset's take_back_rule decides, as before)
        take_back = take_backs and b.get("take_back", True) is not False
        ask = f"ask to take back your last order: warlog take-back {game_id} --reason TEXT"
        if not orders:
            moving = ", ".join(summary.get("whose_move") or []) or "nobody"
            say(f"{b.get('seat', 'this seat')} has no legal order now (to move: {moving})"
                + (f"; or {ask}" if take_back and b.get("take_back") else ""))
            return
        if sealing:  # FF 8: orders are sealed together, then revealed; take-backs wait for the round's end
            say(f"sealed-orders round {sealing.get('round')} is open ({sealing.get('rule')}): seal your orders "
                f"together, 'warlog seal {game_id} ORDER…' (each a JSON object as below; --none for none), "
                f"then 'warlog reveal {game_id}' once every seat has sealed")
        for d in ((read or {}).get("state") or {}).get("pending") or []:
            # the question the answers below answer, when they do not say it (STF's name only its id)
            if isinstance(d, dict) and d.get("seat") == b.get("seat") and not any(o.get("prompt") for o in orders):
                say(f"{d.get('seat')} must answer: {_pending_text(d)}")
        for line in _grouped_by_heading([legal_order_lines(o, game_id, names, kinds, sealed=bool(sealing))
                                         for o in _merged_templates(orders)]):
            say(line)
        if sealing:
            say(f"or concede: warlog concede {game_id}")
            return
        if take_back:
            say(f"or {ask}; or concede: warlog concede {game_id}")
        else:
            say(f"or concede: warlog concede {game_id}")

    return _emit(args, body, human)


def _state_body(client, game_id: str) -> dict | None:
    """GET …/state's answer, or None when it cannot be read (``legal`` then says what it can)."""
    from api.client import ClientError

    try:
        body = client.state(game_id)
    except (ClientError, AttributeError):
        return None
    return body if isinstance(body, dict) else None


def _sealed_round_of(client, game_id: str, seat: str | None, body: dict | None = None) -> dict | None:
    """The open sealed-orders round (FF 8, ``sealed`` of the state) when it names ``seat``; None
    when there is none, or it cannot be read (the orders are then shown as at any other time)."""
    body = body if body is not None else _state_body(client, game_id)
    sealed = (body or {}).get("sealed")
    return sealed if isinstance(sealed, dict) and seat in (sealed.get("seats") or []) else None


def _pending_text(d: dict) -> str:
    """A pending decision's question and rule, the rule once (a prompt may end with it already)."""
    prompt, rule = str(d.get("prompt") or d.get("kind")), d.get("rule")
    return prompt if not rule or prompt.endswith(f"({rule})") else f"{prompt} ({rule})"


def _game_and_names(client, game_id: str) -> tuple[dict, dict]:
    """The game's summary and {id: name} of its pieces (its ruleset's board: units and areas),
    so that output speaks the game's names; ({}, {}) when they cannot be read."""
    summary, names, _, _ = _game_names_and_kinds(client, game_id)
    return summary, names


def _game_names_and_kinds(client, game_id: str) -> tuple[dict, dict, list, bool]:
    """The game's summary, {id: name} of its pieces (its ruleset's board: units and areas), its
    ruleset's order kinds (GET /rulesets/<name>; empty ones when they cannot be read) and whether
    it allows take-backs (its ``take_back_rule`` is not null; assumed so when it cannot be read)."""
    from api.client import ClientError

    try:
        summary = client.game(game_id)
        ruleset = client.ruleset(summary["ruleset"]) if summary.get("ruleset") else {}
    except (ClientError, KeyError, AttributeError):
        return {}, {}, [], True
    board = ruleset.get("board") if isinstance(ruleset, dict) else None
    kinds = ruleset.get("order_kinds") if isinstance(ruleset, dict) else None
    names = {}
    if isinstance(board, dict):
        for what in ("areas", "units"):
            for pid, piece in (board.get(what) or {}).items():
                if isinstance(piece, dict) and isinstance(piece.get("name"), str):
                    names[pid] = piece["name"]
    take_backs = not isinstance(ruleset, dict) or ruleset.get("take_back_rule", "") is not None
    return summary, names, kinds if isinstance(kinds, list) else [], take_backs


def _waiting_take_back(client, game_id: str) -> dict | None:
    """The take-back request no seat has answered yet (GET …/take-backs), or None (also when the
    requests cannot be read: ``legal`` then says what it would say without them)."""
    from api.client import ClientError

    try:
        requests = (client.take_backs(game_id) or {}).get("requests") or []
    except (ClientError, AttributeError):
        return None
    waiting = [r for r in requests if isinstance(r, dict) and r.get("answer") is None]
    return waiting[-1] if waiting else None


def order_kind_for(template: dict, kinds: list) -> dict | None:
    """The ruleset's entry for a legal order: the first of its kind whose ``when`` matches it."""
    for entry in kinds:
        if not isinstance(entry, dict) or entry.get("kind") != template.get("kind"):
            continue
        when = entry.get("when") or {}
        if isinstance(when, dict) and all(template.get(k) == v for k, v in when.items()):
            return entry
    return None


def _head(order: dict, kinds: list) -> str:
    """A legal order's first line: the ruleset's ``head`` for its kind, formatted with the
    template (e.g. "operation Op #20: Naval Movement"), else the kind; then its rule."""
    kind = str(order.get("kind"))
    entry = order_kind_for(order, kinds) or {}
    rule = order.get("rule") or entry.get("rule")  # a template without one (STF's): its kind's
    rule = f" ({rule})" if rule else ""
    try:
        head = str(entry["head"]).format_map(order) if entry.get("head") else kind
    except (KeyError, ValueError, IndexError, AttributeError):
        head = kind
    return head + rule


def legal_order_lines(order: dict, game_id: str, names: dict, kinds: list | None = None, *,
                      sealed: bool = False) -> list[str]:
    """One legal order: its head (from the ruleset's order kinds), each field with its choices,
    and a ready-to-edit command ('warlog seal' with the order as JSON in a sealed-orders round)."""
    kind = str(order.get("kind"))
    head = _head(order, kinds or [])
    entry = order_kind_for(order, kinds or []) or {}
    # what the order does: the template's words, else its kind's help when no head of its own says it
    extra = order.get("prompt") or order.get("note") or (None if entry.get("head") or not entry else
                                                         order.get("title") or entry.get("help"))
    lines = [head + (f" — {extra}" if extra else "")]
    fields = order["fields"] if isinstance(order.get("fields"), dict) else _fields_of_template(order)
    for name, spec in fields.items():
        lines.append(f"  {name}: {_field_text(spec, names)}")
    words, whole = [f"warlog order {game_id} {shlex.quote(kind)}"], {"kind": kind}
    example = order.get("example") if isinstance(order.get("example"), dict) else None
    # the template's example is a whole order (Falklands): sent as it is, with the fields that have
    # one value (its "op"), no other added to it
    for name, spec in {**fields, **{k: None for k in example or {} if k not in fields}}.items():
        fixed = isinstance(spec, list) and len(spec) == 1
        value = _field_example(name, spec) if example is None or (fixed and name not in example) \
            else example.get(name, _LEAVE_OUT)
        if value is not _LEAVE_OUT:
            words.append("--set " + shlex.quote(f"{name}={_set_value(value)}"))
            whole[name] = value
    if sealed:
        words = [f"warlog seal {game_id}", shlex.quote(json.dumps(whole, ensure_ascii=False))]
    lines.append("  " + " ".join(words))
    return lines


_MERGED_FROM = 5


def _merged_templates(orders: list) -> list:
    """Runs of five or more templates that differ in one field only, a text or number (STF's deploy of one
    group in one megahex, offered at each of its sea hexes), as one template whose field is
    ``{"choices": [...]}``: "hex: one of 2403 | 2402 | …" and one command line, not a block each
    (a Deployment phase printed a thousand lines). A title that names the value names the field
    instead ("…, hex HEX, …"); templates whose titles differ otherwise are left as they are."""
    out: list = []
    run: list = []

    def differs(a: dict, b: dict) -> str | None:
        if "fields" in a or "fields" in b or "example" in a or "example" in b or set(a) != set(b):
            return None
        keys = [k for k in a if k not in _TEMPLATE_KEYS and a[k] != b[k]]
        if len(keys) != 1 or any(a[k] != b[k] for k in a if k in _TEMPLATE_KEYS and k != "title"):
            return None
        key = keys[0]
        return key if all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in (a[key], b[key])) else None

    def title_of(o: dict, key: str):
        title = o.get("title")
        return title.replace(f" {o[key]}", f" {key.upper()}") if isinstance(title, str) else title

    def flush() -> None:
        if len(run) < _MERGED_FROM:  # a few are read as they are (STF 5.1's four answers, each its words)
            out.extend(t for t, _ in run)
            return
        key = run[1][1]
        first = dict(run[0][0])
        first[key] = {"choices": [t[key] for t, _ in run]}
        if "title" in first:
            first["title"] = title_of(run[0][0], key)
        out.append({"kind": first["kind"], "fields": {k: ([v] if k != key else v) for k, v in first.items()
                                                      if k not in _TEMPLATE_KEYS},
                    **{k: v for k, v in first.items() if k in _TEMPLATE_KEYS and k != "fields"}})

    for o in orders:
        if run and isinstance(o, dict):
            key = differs(run[-1][0], o)
            if key and (len(run) == 1 or key == run[-1][1]) and title_of(o, key) == title_of(run[0][0], key):
                run.append((o, key))
                continue
        flush()
        run = [(o, None)] if isinstance(o, dict) else []
        if not isinstance(o, dict):
            out.append(o)
    flush()
    return out


def _grouped_by_heading(blocks: list[list[str]]) -> list[str]:
    """Legal orders' lines with each heading once (STF's deploy offers one template a megahex,
    all under one long heading): the heading, then each of its templates' fields and command
    line, in the order the headings first come."""
    grouped: dict[str, list[list[str]]] = {}
    for heading, *rest in blocks:
        grouped.setdefault(heading, []).append(rest)
    return [line for heading, bodies in grouped.items() for line in [heading, *(x for body in bodies for x in body)]]


_LEAVE_OUT = object()
_TEMPLATE_KEYS = frozenset({"kind", "rule", "title", "prompt", "note", "decision_kind", "options", "choices", "fields",
                            "example"})


def _fields_of_template(order: dict) -> dict:
    """The fields of a template without ``fields``, read as the game page reads it
    (docs/pages.md): ``{id: [choices]}`` (Falklands set-up and submarine moves) is one choice per
    id, sent as ``{id: choice}``; any other value, a list or an object too, is sent as it is (STF's
    templates are whole orders: a purchase, its task forces, a path)."""
    out: dict = {}
    for key, value in order.items():
        if key in _TEMPLATE_KEYS:
            continue
        if isinstance(value, dict) and value and all(isinstance(v, list) for v in value.values()):
            out[key] = {"each": value}
        else:
            out[key] = [value]
    return out


def _label(value, names: dict) -> str:
    """A choice as ``--set FIELD=VALUE`` reads it back: a name with its id, else JSON (a
    draw's winner is ``null``, not a word the order would refuse)."""
    if isinstance(value, str):
        return f"{names[value]} ({value})" if value in names else value
    return _compact(value)


def _field_text(spec, names: dict) -> str:
    """A field as legal-orders describes it (docs/pages.md): a text, a list (one of), or an
    object {choices, multiple, optional, type, description}."""
    if isinstance(spec, list):
        return _label(spec[0], names) if len(spec) == 1 else "one of " + " | ".join(_label(v, names) for v in spec)
    if not isinstance(spec, dict):
        return str(spec)
    if "each" in spec:
        return "JSON {id: choice}: " + "; ".join(
            f"{_label(key, names)}: one of {' | '.join(_label(v, names) for v in choices)}"
            for key, choices in spec["each"].items()) if spec["each"] else "JSON {}: nothing to choose"
    parts = []
    if spec.get("choices") == []:  # nothing to choose now: a list would read "a list of any of ;"
        parts.append("none now")
    elif spec.get("choices") is not None:
        listed = ", ".join(_label(v, names) for v in spec["choices"])
        parts.append(("a list of any of " if spec.get("multiple") else "one of ") + listed)
    elif spec.get("type") == "boolean":
        parts.append("true or false")
    elif spec.get("type") == "json":
        parts.append("JSON")
    if spec.get("description"):
        parts.append(str(spec["description"]))
    if spec.get("optional"):
        parts.append("optional")
    return "; ".join(parts) or _compact(spec)


def _field_example(name: str, spec):
    """A value for the command line: the first choice of a required field, or a placeholder; an
    optional field only with the ``example`` its template gives (one of several optional fields of
    which the order needs one)."""
    if isinstance(spec, list):
        return spec[0] if spec else _LEAVE_OUT
    if isinstance(spec, str):
        return _LEAVE_OUT if "optional" in spec else name.upper()
    if not isinstance(spec, dict) or (spec.get("optional") and "example" not in spec):
        return _LEAVE_OUT
    if "each" in spec:
        return {key: choices[0] for key, choices in spec["each"].items() if choices}
    if "example" in spec:  # before the first choice of all: the example is of the first area (Op #18)
        return spec["example"]
    if spec.get("choices"):
        return spec["choices"][:1] if spec.get("multiple") else spec["choices"][0]
    return name.upper()


def _set_value(value) -> str:
    """VALUE of --set FIELD=VALUE as it reads back (``_pairs``): text stays text unless it would
    parse as JSON, which then is quoted."""
    if isinstance(value, str):
        try:
            json.loads(value)
        except ValueError:
            return value
    return _compact(value)


def _compact(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def _target(raw: str, modifiers: list[str] | None) -> dict:
    m = re.fullmatch(r"\s*(>=|<=|==|>|<)\s*(-?\d+)\s*", raw)
    if not m:
        raise UsageError(f"--target is a comparison and a number, e.g. '>=8', not {raw!r}")
    target = {"compare": m.group(1), "value": int(m.group(2)), "modifiers": []}
    for mod in modifiers or []:
        mm = re.fullmatch(r"\s*([+-]\d+)\s*(.*)", mod)
        if not mm:
            raise UsageError(f"--modifier is a signed number and a reason, e.g. '+1 elite', not {mod!r}")
        target["modifiers"].append({"value": int(mm.group(1)), "reason": mm.group(2).strip()})
    return target


def build_order(args: argparse.Namespace) -> dict:
    """The order from KIND and its words and options (or --json ORDER, taken as it is)."""
    if args.order_json is not None:
        if args.kind:
            raise UsageError("give either --json ORDER or KIND with its arguments, not both")
        if not args.order_json.lstrip().startswith("{"):
            raise UsageError(f"--json takes an order as a JSON object, not {args.order_json!r}; for JSON "
                             "output of an order built from KIND, put --json last")
        order = _json_object(args.order_json, "--json ORDER")
        order.update(_pairs(args.set, "--set", split_commas=False))
        return order
    if not args.kind:
        raise UsageError("say what to order: KIND [ARGS] (see 'warlog legal GAME') or --json ORDER")
    kind, words = args.kind, list(args.words or [])
    order: dict = {"kind": kind}
    given = _pairs(args.set, "--set", split_commas=False)

    def take(n: int, usage: str, fields: tuple = ()) -> list[str]:
        if not words and fields and all(f in given for f in fields):
            return [given[f] for f in fields]  # every field as --set FIELD=VALUE (as 'legal' prints)
        if len(words) != n:
            raise UsageError(f"usage: warlog order GAME {usage} (or each field as --set FIELD=VALUE)")
        return words

    if kind == "roll":
        (order["dice"],) = take(1, "roll DICE --purpose TEXT [--target '>=8' --modifier '+1 elite'] "
                                   "[--rule R] [--unit U] [--replaces SEQ] [--sealed]", ("dice",))
        if args.purpose is not None:
            order["purpose"] = args.purpose
        if args.target is not None:
            order["target"] = _target(args.target, args.modifier)
        elif args.modifier:
            raise UsageError("--modifier goes with --target")
        if args.unit:
            order["units"] = args.unit
        if args.replaces is not None:
            order["replaces"] = args.replaces
        if args.sealed:
            order["sealed"] = True
    elif kind == "show":
        (seq,) = take(1, "show SEQ", ("roll",))
        try:
            order["roll"] = seq if isinstance(seq, int) else int(seq)
        except (TypeError, ValueError):
            raise UsageError(f"the sealed roll to show is its seq, a whole number, not {seq!r}") from None
    elif kind == "note":
        text = " ".join(words) if words else args.text
        if not text and "text" not in given:
            raise UsageError("usage: warlog order GAME note TEXT (or --set text=TEXT)")
        if text:
            order["text"] = text
    elif kind == "vp":
        side, delta = take(2, "vp SIDE DELTA --reason TEXT", ("side", "delta"))
        try:
            order.update(side=side, delta=delta if isinstance(delta, int) else int(delta))
        except (TypeError, ValueError):
            raise UsageError(f"the VP delta is a whole number like +2 or -1, not {delta!r}") from None
    elif kind == "advance":
        take(0, "advance")
    elif kind == "end":
        if len(words) > 1:
            raise UsageError("usage: warlog order GAME end [WINNER|draw] --reason TEXT [--level L]")
        winner = words[0] if words else args.winner
        order["winner"] = None if winner in (None, "draw", "none", "null") else winner
        if args.level is not None:
            order["level"] = args.level
    elif words:
        raise UsageError(f"an order of kind {kind!r} takes its fields as --set KEY=VALUE")
    if kind != "note" and args.text is not None:
        order["text"] = args.text
    if args.reason is not None:
        order["reason"] = args.reason
    if args.rule is not None:
        order["rule"] = args.rule
    if kind != "roll" and (args.purpose is not None or args.target or args.modifier or args.unit
                           or args.replaces is not None or args.sealed):
        raise UsageError("--purpose, --target, --modifier, --unit, --replaces and --sealed go with a roll "
                         "(--set KEY=VALUE gives any field to any order)")
    order.update(given)
    return order


def cmd_order(args: argparse.Namespace) -> int:
    """Give an order under the seat's pending order id: made once and kept in the config until an
    order is accepted under it, so a refused order's next attempt (corrected or not) has the same
    id and so the same dice (docs/dice.md, "Retries keep their id")."""
    from api.client import ConnectionFailed, ProblemError

    session = Session(args)
    game_id = session.game_id(args.game_id)
    args.json = args.order_json is not None or args.json_out
    order = build_order(args)
    seat = getattr(args, "as_seat", None) or session.entry(game_id).get("seat") or ""
    order_id = args.order_id or _pending_order_id(session, game_id, seat)
    client = session.client(game_id, "seat")
    signature, head = _sign(session, client, game_id, order_id, order)
    try:
        result = client.submit_order(game_id, order, order_id=order_id, if_match=args.if_match,
                                     signature=signature, head=head)
    except ConnectionFailed as exc:
        again = (f"send it again with --order-id {order_id}" if args.order_id else
                 f"send it again: the next 'warlog order' of {seat or 'this seat'} reuses order id {order_id}")
        raise ConnectionFailed(f"{exc}; the order may or may not be recorded: {again}, which records it at "
                               "most once") from None
    except ProblemError as exc:
        if exc.code == "idempotency_conflict" and _accepted_in_log(client, game_id, order_id):
            _forget_pending_order_id(session, game_id, seat, order_id)  # spent on an order accepted before
            exc.detail += (f"; order id {order_id} was recorded for an earlier order (see 'warlog history'), "
                           "so the next order is given a new id")
        exc.detail += _number_meant_as_text(args, exc)
        raise
    _forget_pending_order_id(session, game_id, seat, order_id)
    _keep_signed_head(session, game_id, result)
    return _emit(args, result, lambda r: _print_result(r, f"order {order_id} recorded:"))


def _number_meant_as_text(args: argparse.Namespace, exc) -> str:
    """What to type when ``--set FIELD=2619`` sent a number (VALUE is read as JSON when it parses)
    and the server refused the field for not being a text (STF's hex names): the value quoted."""
    field = exc.body.get("field") if isinstance(exc.body, dict) else None
    if exc.code != "invalid_order" or not isinstance(field, str) or not re.search(r"\b(string|text)\b", exc.detail):
        return ""
    raw = next((item.partition("=")[2] for item in reversed(args.set or []) if item.partition("=")[0].strip() == field),
               None)
    try:
        value = json.loads(raw) if raw is not None else None
    except ValueError:
        return ""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return ""
    return (f" (--set read {field}={raw.strip()} as a number; as a text it is quoted: "
            f"--set {shlex.quote(f'{field}={json.dumps(raw.strip())}')})")


def _pending_order_id(session: Session, game_id: str, seat: str) -> str:
    """The seat's pending order id: the one kept since its last order was accepted, or a fresh
    uuid4, kept before anything is sent (a new id after a refusal would be a new roll)."""
    kept = (session.entry(game_id).get("pending_order_ids") or {}).get(seat)
    if kept:
        return kept
    order_id = str(uuid.uuid4())
    _save_or_warn(session, game_id, pending_order_ids={seat: order_id})
    return order_id


def _forget_pending_order_id(session: Session, game_id: str, seat: str, order_id: str) -> None:
    """An order was accepted under ``order_id``: the seat's next order is given a new id."""
    pending = session.entry(game_id).get("pending_order_ids") or {}
    if pending.get(seat) == order_id:
        pending.pop(seat)
        _save_or_warn(session, game_id)


def _accepted_in_log(client, game_id: str, order_id: str) -> bool:
    """Whether the game's log holds an OrderAccepted under ``order_id``: what makes an id spent
    when the server answers that it was used for another order (not just its word for it)."""
    after: int | None = 0
    while after is not None:
        page = client.events(game_id, after=after, limit=500)
        if any(e.get("type") == "OrderAccepted" and (e.get("data") or {}).get("order_id") == order_id
               for e in page.get("events") or []):
            return True
        after = page.get("next_after")
    return False


def _sealed_round(client, game_id: str) -> tuple[str, dict]:
    """The caller's seat (as the server names it) and the open sealed-orders round."""
    seat = client.legal_orders(game_id).get("seat")
    round_ = client.state(game_id).get("sealed")
    if not round_:
        raise UsageError(f"game {game_id} has no sealed-orders round open: give orders with 'warlog order'")
    return seat, round_


def cmd_seal(args: argparse.Namespace) -> int:
    """Seal orders: a fresh salt of 256 random bits is kept with the orders in the 0600 config
    (before anything is sent, so a lost answer loses nothing); only the commitment is sent."""
    import secrets

    from domain import sealed, signatures

    session = Session(args)
    game_id = session.game_id(args.game_id)
    orders = [_json_object(raw, f"order {n}") for n, raw in enumerate(args.orders, start=1)]
    if not orders and not args.none:
        raise UsageError("give the orders to seal (each a JSON object), or --none to seal no orders this round")
    client = session.client(game_id, "seat")
    seat, round_ = _sealed_round(client, game_id)
    kept = (session.entry(game_id).get("sealed") or {}).get(seat)
    if kept and kept.get("round") == round_["round"]:
        if kept["orders"] != orders:  # one commitment a round: never a second with a new salt
            raise UsageError(f"{seat} sealed other orders for round {round_['round']} already (kept in "
                             f"{session.path}); a commitment cannot be changed: reveal them with "
                             f"'warlog reveal {game_id}'")
        salt = kept["salt"]  # the same orders again: the same commitment, recorded at most once
    else:
        salt = secrets.token_hex(32)
    commitment = sealed.commitment(game_id, seat, round_["round"], orders, salt)
    session.remember(game_id, sealed={seat: {"round": round_["round"], "orders": orders, "salt": salt,
                                              "commitment": commitment}})
    signature, head = _sign_sealed(session, client, game_id, seat, lambda key, head: signatures.sign_seal(
        key, game_id, seat, round_["round"], commitment, head))
    result = client.seal(game_id, commitment, signature=signature, head=head)
    _keep_signed_head(session, game_id, result)
    return _emit(args, result, lambda r: _print_result(
        r, f"{seat} sealed {len(orders)} order(s) for round {round_['round']}; the orders and salt are kept in "
           f"{session.path} until 'warlog reveal {game_id}':"))


def cmd_reveal(args: argparse.Namespace) -> int:
    """Reveal the orders and salt kept by 'seal'; forgotten from the config once recorded."""
    from domain import signatures

    session = Session(args)
    game_id = session.game_id(args.game_id)
    client = session.client(game_id, "seat")
    seat, round_ = _sealed_round(client, game_id)
    kept = (session.entry(game_id).get("sealed") or {}).get(seat)
    if not kept or kept.get("round") != round_["round"]:
        raise UsageError(f"no orders of {seat} sealed for round {round_['round']} are kept in {session.path}: "
                         f"seal them first ('warlog seal {game_id} ORDER...')")
    signature, head = _sign_sealed(session, client, game_id, seat, lambda key, head: signatures.sign_reveal(
        key, game_id, seat, round_["round"], kept["orders"], kept["salt"], head))
    result = client.reveal(game_id, kept["orders"], kept["salt"], signature=signature, head=head)
    _keep_signed_head(session, game_id, result)
    config = load_config(session.path)  # the orders are in the log now: the salt is no secret to keep
    (config["games"].get(game_id, {}).get("sealed") or {}).pop(seat, None)
    save_config(config, session.path)
    return _emit(args, result, lambda r: _print_result(r, f"{seat} revealed its orders of round {round_['round']}:"))


def _sign(session: Session, client, game_id: str, order_id: str, order: dict) -> tuple[str | None, str | None]:
    """(signature, head) of an order of a seat whose key is kept here, else (None, None). The head
    is the last one this machine saw of the game (the game's current one, fetched, when none is
    kept); the same order id sent again is signed over the same bytes, so a retry is the same order."""
    from domain import chain, signatures

    entry = session.entry(game_id)
    seat = getattr(session.args, "as_seat", None) or entry.get("seat")
    key = (entry.get("keys") or {}).get(seat)
    if not key:
        return None, None
    sent = entry.get("last_signed") or {}
    if sent.get("order_id") == order_id and sent.get("digest") == chain.digest(order):
        return sent["signature"], sent["head"]  # the same order sent again: the same signature
    head = _seen_head(session, client, game_id)
    signature = signatures.sign_order(signatures.private_key_from_text(key), game_id, order_id, order, head)
    # Kept before it is sent, so a retry after a broken connection is the very same request.
    _save_or_warn(session, game_id, last_signed={"order_id": order_id, "digest": chain.digest(order),
                                                 "head": head, "signature": signature})
    return signature, head


def _sign_sealed(session: Session, client, game_id: str, seat: str, sign) -> tuple[str | None, str | None]:
    """(signature, head) of a seal or reveal of ``seat`` when its key is kept here, else (None, None):
    ``sign(key, head)`` signs it over the last head this machine saw (docs/dice.md, "Signed orders
    and heads"). A retry is signed again; the server answers it with the first result."""
    from domain import signatures

    key = (session.entry(game_id).get("keys") or {}).get(seat)
    if not key:
        return None, None
    head = _seen_head(session, client, game_id)
    return sign(signatures.private_key_from_text(key), head), head


def _sign_command(session: Session, client, game_id: str, kind: str, fields: dict) -> dict:
    """``signature`` and ``head`` of a seat's other command (``kind`` and its ``fields``, as
    domain/signatures.py ``command_message``) when its key is kept here, else nothing: signed over
    the last head this machine saw (docs/dice.md, "Signed orders and heads"). A format-1 game's
    server ignores them."""
    from domain import signatures

    entry = session.entry(game_id)
    seat = getattr(session.args, "as_seat", None) or entry.get("seat")
    key = (entry.get("keys") or {}).get(seat)
    if not key:
        return {}
    head = _seen_head(session, client, game_id)
    return {"signature": signatures.sign_command(signatures.private_key_from_text(key), game_id, kind, seat, fields,
                                                 head), "head": head}


def _keep_signed_head(session: Session, game_id: str, result: dict, replayed: bool | None = None) -> None:
    """Keep the signed head a command's (or a join's) answer holds, when _head_to_keep takes it."""
    head = _head_to_keep(session, game_id, result, replayed)
    if head is not None:
        _save_or_warn(session, game_id, signed_head=head)


def _unsigned_head(session: Session, game_id: str, head: dict, server: str | None) -> str | None:
    """Why ``head`` is not signed by the game's server key, or None. The key is pinned in the game's
    entry when its first head is kept (GET /server-key): a hostile server answering later with a head
    under another key would have replaced a head a third party checks by one nobody can."""
    from api.client import ClientError, WarlogClient
    from domain import signatures

    key = session.entry(game_id).get("server_key")
    if not isinstance(key, str):
        try:
            key = WarlogClient(server or session.server(game_id), None,
                               timeout=getattr(session.args, "timeout", None) or 30.0).server_key().get("public_key")
        except (ClientError, AttributeError) as exc:
            return f"a signed head whose server key could not be read ({exc})"
        if not isinstance(key, str):
            return "a signed head whose server key could not be read (GET /server-key named none)"
        _save_or_warn(session, game_id, server_key=key)
    if not signatures.signature_valid(key, head["signature"], signatures.head_message(head["game"], int(head["seq"]),
                                                                                      head["hash"])):
        return f"a signed head whose signature is not the server key's (the key pinned for the game: {key})"
    return None


def _integer(value) -> bool:
    """A JSON integer as the client reads one (an int, or the client's int wrapper; not 5.0, not true)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _head_to_keep(session: Session, game_id: str, result: dict, replayed: bool | None = None,
                  server: str | None = None) -> dict | None:
    """The answer's signed head, when it is the answer's own and newer than the one kept; else None,
    said on stderr (docs/dice.md, "Signed heads"). A kept head proves the log went at least that far:
    one the server put in an answer for an earlier line, or for another version or game, would let a
    log cut or rewritten after it verify against it. ``replayed``: the answer is a retry's first result
    (default: the answer's ``replayed``), whose head may be older than the one kept, and is then not kept.
    Its signature is checked against the server key pinned for the game (_unsigned_head; ``server``:
    the server to ask for it when none is pinned yet, by default the game's)."""
    from domain import signatures

    head = result.get("signed_head") if isinstance(result, dict) else None
    if head is None:
        return None
    kept = session.entry(game_id).get("signed_head")
    kept_seq = kept.get("seq") if isinstance(kept, dict) and _integer(kept.get("seq")) else None
    replayed = result.get("replayed") is True if replayed is None else replayed
    if not isinstance(head, dict) or set(head) != {"game", "seq", "hash", "signature"}:
        why = "a signed head that is not an object with exactly game, seq, hash and signature"
    elif head["game"] != game_id:
        why = f"a signed head of game {head['game']!r}"
    elif not _integer(head["seq"]) or not signatures.is_hash(head["hash"]) or not isinstance(head["signature"], str):
        why = "a signed head whose seq is not a JSON integer, or its hash not 64 lowercase hex, or its signature not text"
    elif head["seq"] != result.get("version") or head["hash"] != result.get("chain_head"):
        why = (f"a signed head of line {head['seq']!r}, not of the answer's version {result.get('version')!r} "
               "and chain head")
    elif kept_seq is not None and (head["seq"] < kept_seq or (head["seq"] == kept_seq and not replayed)):
        if replayed:
            return None  # a retry's first result: the head kept is newer
        why = f"a signed head of line {head['seq']}, no newer than the one kept (line {kept_seq}), for a write it recorded"
    else:
        why = _unsigned_head(session, game_id, head, server)
        if why is None:
            return head
    where = f"line {kept_seq}" if kept_seq is not None else "none"
    say(f"warlog {session.args.command}: the server's answer holds {why}: not kept (the head kept is {where}; "
        f"'warlog heads {game_id}')", file=sys.stderr)
    return None


def _seen_head(session: Session, client, game_id: str) -> str:
    """The last chain head this machine saw of the game: the kept signed head's, else the game's now."""
    return (session.entry(game_id).get("signed_head") or {}).get("hash") or client.game(game_id).get("chain_head")


def cmd_take_back(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    client = session.client(game_id, "seat")
    reason = args.reason or ""
    result = client.request_take_back(game_id, reason, **_sign_command(session, client, game_id, "take_back",
                                                                       {"reason": reason}))
    _keep_signed_head(session, game_id, result)
    return _emit(args, result, lambda r: _print_result(r, "take-back requested; the opponent answers "
                                                         "with 'warlog answer-take-back'"))


def cmd_answer_take_back(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    client = session.client(game_id, "seat")
    result = client.answer_take_back(game_id, args.accept, **_sign_command(
        session, client, game_id, "take_back_answer", {"accept": bool(args.accept)}))
    _keep_signed_head(session, game_id, result)
    return _emit(args, result, lambda r: _print_result(r, "take-back " + ("accepted" if args.accept else "declined")))


def cmd_concede(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    client = session.client(game_id, "seat")
    result = client.concede(game_id, **_sign_command(session, client, game_id, "concede", {}))
    _keep_signed_head(session, game_id, result)
    return _emit(args, result, lambda r: _print_result(r, "conceded"))


def cmd_seat_token(args: argparse.Namespace) -> int:
    """Replace the seat's token (a leaked one; docs/api.md, "A seat's token replaced") and save the new one."""
    from api.client import ConnectionFailed, UnexpectedAnswer, promised
    from domain.access import id_of_token

    session = Session(args)
    game_id = session.game_id(args.game_id)
    client = session.client(game_id, "seat")
    old = client.token
    # The request's key is kept before it is sent: run again after a lost answer, it gets the same token.
    pending = session.entry(game_id).get("pending_rotations") or {}
    request_id = pending.get(id_of_token(old)) or str(uuid.uuid4())
    _save_or_warn(session, game_id, pending_rotations={id_of_token(old): request_id})
    try:
        result = client.rotate_seat_token(game_id, request_id, **_sign_command(session, client, game_id, "seat_token",
                                                                               {"request_id": request_id}))
    except ConnectionFailed as exc:
        raise ConnectionFailed(f"{exc}; the token may or may not be replaced: run the same 'warlog seat-token' again "
                               "within 60 minutes, which sends the same request and gets the same new token") from None
    seat, token = promised(result, "seat"), promised(result, "token")
    entry = session.entry(game_id)
    # The seats this token is saved for: the answer must name one, or the new token, saved under
    # the seat it names, would take the place of another seat's (its only copy).
    held = [s for s, t in (entry.get("seats") or {}).items() if t == old]
    if promised(result, "game_id") != game_id or (held and seat not in held):
        raise UnexpectedAnswer(f"POST /games/{game_id}/seat-token", f"it replaced the token of seat {seat!r} of game "
                               f"{result.get('game_id')!r}, not of {' or '.join(held) or 'the seat'} of {game_id}; "
                               f"nothing was saved; the new token (keep it): {token}")
    (entry.get("pending_rotations") or {}).pop(id_of_token(old), None)  # answered: nothing to send again
    saved = {"seats": {seat: token}}
    if entry.get("token") in (None, old):
        saved["token"] = token
    path = _save_or_warn(session, game_id, **saved)

    def human(body: dict) -> None:
        say(f"replaced the {seat} token of game {game_id}: the old one no longer works")
        say(f"saved the new token to {path}" if path else f"the new {seat} token (keep it): {token}")

    _emit(args, result, human)
    return EXIT_OK if path else EXIT_USAGE


def cmd_vacation(args: argparse.Namespace) -> int:
    """Announce days of vacation (a game with a time control; docs/api.md, "Time control")."""
    session = Session(args)
    game_id = session.game_id(args.game_id)
    client = session.client(game_id, "seat")
    signed = _sign_command(session, client, game_id, "vacation", {"days": args.days})
    result = _keyed(args, "vacation", lambda key: client.take_vacation(game_id, args.days, command_id=key, **signed))
    _keep_signed_head(session, game_id, result)
    return _emit(args, result, lambda r: _print_result(r, f"vacation of {args.days} day(s) recorded"))


def cmd_extend(args: argparse.Namespace) -> int:
    """Give the seats to move more days (a seat not to move; docs/api.md, "Time control")."""
    session = Session(args)
    game_id = session.game_id(args.game_id)
    client = session.client(game_id, "seat")
    signed = _sign_command(session, client, game_id, "extension", {"days": args.days})
    result = _keyed(args, "extension", lambda key: client.grant_extension(game_id, args.days, command_id=key, **signed))
    _keep_signed_head(session, game_id, result)
    return _emit(args, result, lambda r: _print_result(r, f"{args.days} more day(s) given"))


def _keyed(args: argparse.Namespace, what: str, send):
    """Send a command under its Idempotency-Key (--key, else a fresh one); when no answer comes,
    say the key, so the same command sent again with it is recorded at most once."""
    from api.client import ConnectionFailed

    key = args.key or str(uuid.uuid4())
    try:
        return send(key)
    except ConnectionFailed as exc:
        raise ConnectionFailed(f"{exc}; the {what} may or may not be recorded: send it again with --key {key}, "
                               "which records it at most once") from None


def cmd_claim_win(args: argparse.Namespace) -> int:
    """Claim the win once the seats to move let their deadline pass."""
    session = Session(args)
    game_id = session.game_id(args.game_id)
    client = session.client(game_id, "seat")
    result = client.claim_win(game_id, **_sign_command(session, client, game_id, "claim_win", {}))
    _keep_signed_head(session, game_id, result)
    return _emit(args, result, lambda r: _print_result(r, "win claimed on time"))


def cmd_client_seed(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    client = session.client(game_id, "seat")
    result = client.set_client_seed(game_id, args.client_seed, **_sign_command(
        session, client, game_id, "client_seed", {"client_seed": args.client_seed}))
    _keep_signed_head(session, game_id, result)
    return _emit(args, result, lambda r: _print_result(r, "client seed changed (from the next dice epoch)"))


def cmd_standing(args: argparse.Namespace) -> int:
    """List the seat's standing orders, or set (--set ID --kind KIND --policy JSON) or cancel one."""
    session = Session(args)
    game_id = session.game_id(args.game_id)
    client = session.client(game_id, "seat")
    if args.cancel:
        result = client.cancel_standing_order(game_id, args.cancel, **_sign_command(
            session, client, game_id, "standing_order_cancel", {"policy_id": args.cancel}))
        _keep_signed_head(session, game_id, result)
        return _emit(args, result, lambda r: _print_result(r, f"standing order {args.cancel} cancelled"))
    if args.set:
        if not args.kind or args.policy is None:
            raise UsageError("--set ID needs --kind DECISION_KIND and --policy JSON")
        try:
            policy = json.loads(args.policy)
        except ValueError as exc:
            raise UsageError(f"--policy is JSON: {exc}") from None
        # Signed as given: a policy the rules record in another form is refused naming that form.
        result = client.set_standing_order(game_id, args.set, args.kind, policy, **_sign_command(
            session, client, game_id, "standing_order", {"policy_id": args.set, "decision_kind": args.kind,
                                                         "policy": policy}))
        _keep_signed_head(session, game_id, result)
        return _emit(args, result, lambda r: _print_result(r, f"standing order {args.set} set"))
    body = client.standing_orders(game_id)

    def show(b: dict) -> None:
        for kind, accepted in b.get("accepts", {}).items():
            say(f"accepts {kind} ({accepted.get('rule')}): {accepted.get('description')}")
        for entry in b.get("standing_orders", []):
            say(f"{entry['seat']} {entry['policy_id']}: {entry['decision_kind']} -> {json.dumps(entry['policy'])}")
        if not b.get("standing_orders"):
            say("no standing orders")
    return _emit(args, body, show)


def cmd_notify(args: argparse.Namespace) -> int:
    """Show the seat's notification settings, or change the ones given."""
    session = Session(args)
    game_id = session.game_id(args.game_id)
    client = session.client(game_id, "seat")
    body: dict = {}
    if args.email is not None:
        body["email"] = args.email
    if args.notify is not None:
        body["notify"] = args.notify
    for name in ("events", "channels"):
        if getattr(args, name) is not None:
            body[name] = [x.strip() for x in getattr(args, name).split(",") if x.strip()]
    if args.digest is not None:
        body["digest"] = args.digest
    if args.webhook is not None:
        body["webhook_url"] = None if args.webhook == "" else args.webhook
    if args.webhook_secret is not None:
        body["webhook_secret"] = args.webhook_secret
    if args.webhook_format is not None:
        body["webhook_format"] = _webhook_format(args.webhook_format, "--webhook-format")
    if body:  # a keyed seat's signature of its settings is used once: the same settings again need a new one
        body["nonce"] = secrets.token_hex(8)
    result = client.set_notifications(game_id, body, **_sign_command(session, client, game_id, "notifications",
                                                                     {"settings": body})) \
        if body else client.notifications(game_id)

    def show(r: dict) -> None:
        say(f"{r['seat']}: " + (f"mail to {r['email']}" if r["email"] else "no address") +
            ("" if r["notify"] else " (mails off)"))
        if r["email"] and not r.get("email_confirmed", True):
            say("  not confirmed: no turn mail goes to it until the link in its confirmation mail is followed" +
                ("; one is on its way" if r.get("confirmation_mail") else "; give --email again for another"))
        say(f"  events: {', '.join(r['events']) or 'none'}")
        say(f"  channels: {', '.join(r['channels']) or 'none'}" + ("; a daily digest instead of each mail"
                                                                   if r["digest"] else ""))
        say(f"  webhook: {r['webhook_url'] or 'none'}" +
            (f" ({r['webhook_format']} format)" if r["webhook_url"] and r.get("webhook_format") else ""))
        if r.get("webhook_secret"):
            say(f"  webhook secret (shown once): {r['webhook_secret']}")
    return _emit(args, result, show)


def cmd_umpire_token(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    client = session.client(game_id, "admin")
    body = client.umpire_token(game_id)
    _emit(args, body, lambda b: _umpire_token_text(b, client.base_url.removesuffix("/api/v1")))
    path = _save_or_warn(session, game_id, umpire_token=body.get("token"))
    if path and not args.json:
        say(f"saved it to {path} too: this machine reads the game as the umpire "
            f"('warlog umpire-revoke {game_id} {body.get('token_id')}' ends the token)")
    return EXIT_OK if path else EXIT_USAGE


def _umpire_token_text(b: dict, server: str) -> None:
    """The umpire's token, and what the admin does with it: hand it on, and how the umpire uses it
    (the CLI with --token, or the game page's paste form)."""
    game_id, token = b.get("game_id"), b.get("token")
    umpire = f"the umpire, {b['umpire']}," if b.get("umpire") else "the umpire"
    say(f"umpire token for game {game_id}: {token}")
    say(f"give it to {umpire} privately: it reads every hidden value of the game (and annotates); "
        "no seat should see it")
    say(f"the umpire uses it from their own machine: warlog state {game_id} --server {server} --token {token}")
    say("  (history, dice, export, replay, watch and annotate take it the same way, or WARLOG_TOKEN), or opens "
        f"{server}/games/{game_id} and pastes it under 'Or paste a token'")


def cmd_spectator_token(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    body = session.client(game_id, "admin").spectator_token(game_id, args.name)
    _emit(args, body, lambda b: say(f"spectator token of {b.get('name')} for game {b.get('game_id')}: {b.get('token')}"))
    if args.keep:
        path = _save_or_warn(session, game_id, spectator_token=body.get("token"))
        if path and not args.json:
            say(f"saved it to {path}")
        return EXIT_OK if path else EXIT_USAGE
    return EXIT_OK


def cmd_spectator_tokens(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    body = session.client(game_id, "admin").spectator_tokens(game_id)

    def human(b: dict) -> None:
        tokens = b.get("tokens") or []
        if not tokens:
            say("no spectator tokens")
        for t in tokens:
            state = f"revoked {t['revoked_at']}" if t.get("revoked_at") else "live"
            say(f"  {t.get('token_id')}  {t.get('name')}  made {t.get('created_at')}  {state}")

    return _emit(args, body, human)


def cmd_spectator_revoke(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    if bool(args.token_id) == bool(args.name):
        raise UsageError("give a TOKEN_ID (one token, from 'warlog spectator-tokens') or --name (every token "
                         "of that name)")
    client = session.client(game_id, "admin")
    if args.name:
        result = client.revoke_spectator_name(game_id, args.name)
        return _emit(args, result, lambda r: say(
            f"{r.get('revoked')} live spectator token(s) of {r.get('name')} revoked; "
            f"{len(r.get('tokens') or [])} issued under that name, none works now"))
    body = client.revoke_spectator_token(game_id, args.token_id)

    def human(b: dict) -> None:
        was = "was already revoked" if b.get("already_revoked") else "revoked"
        say(f"spectator token {b.get('token_id')} of {b.get('name')} {was} {b.get('revoked_at')}")

    return _emit(args, body, human)


def cmd_annotate(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    client = session.client(game_id, "write")
    annotation_id = args.annotation_id or str(uuid.uuid4())
    kind = "private_annotation" if args.private else "annotation"
    # Signed when a seat's key is kept here; the server ignores a signature from the umpire or a spectator.
    signed = _sign_command(session, client, game_id, kind, {"annotation_id": annotation_id, "about_seq": args.seq,
                                                            "text": args.text})
    result = client.annotate(game_id, args.seq, args.text, private=args.private, annotation_id=annotation_id,
                             **signed)
    _keep_signed_head(session, game_id, result)
    what = "private annotation" if args.private else "annotation"
    return _emit(args, result, lambda r: _print_result(r, f"{what} {annotation_id} on event {args.seq} recorded"))


def cmd_umpire_propose(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    result = session.client(game_id, "admin").propose_umpire(game_id, args.name)
    return _emit(args, result, lambda r: _print_result(r, f"{args.name} proposed as umpire; appointed once every "
                                                          "seat accepts with 'warlog umpire-answer'"))


def cmd_umpire_answer(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    client = session.client(game_id, "seat")
    result = client.answer_umpire(game_id, args.accept, **_sign_command(
        session, client, game_id, "umpire_answer", {"accept": bool(args.accept)}))
    _keep_signed_head(session, game_id, result)
    return _emit(args, result, lambda r: _print_result(r, "umpire " + ("accepted" if args.accept else "declined")))


def _webhook_format(value: str, flag: str) -> str:
    """A webhook's body format as given to ``flag``: one of the formats the server takes (the game's
    webhook and a seat's own take the same)."""
    from workers.notify import FORMATS

    if value not in FORMATS:
        raise UsageError(f"{flag} is one of {', '.join(FORMATS)}")
    return value


def cmd_webhook(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    if bool(args.url) == bool(args.remove):
        raise UsageError("give the receiver's URL, or --remove")
    if args.remove and (args.secret or args.format):
        raise UsageError("--remove takes no --secret or --format")
    if args.format:
        _webhook_format(args.format, "--format")
    body = session.client(game_id, "admin").set_webhook(game_id, None if args.remove else args.url,
                                                        secret=args.secret, fmt=args.format)

    def human(b: dict) -> None:
        if not b.get("url"):
            say(f"game {b.get('game_id')} has no webhook now")
            return
        say(f"webhook of game {b.get('game_id')}: {b.get('url')} ({b.get('format')} format)")
        if b.get("secret"):
            say(f"secret (shown once; the receiver verifies each delivery with it): {b['secret']}")
        say(f"signed: {b.get('signature')}")

    return _emit(args, body, human)


def cmd_umpire_tokens(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    body = session.client(game_id, "admin").umpire_tokens(game_id)

    def human(b: dict) -> None:
        say(f"umpire: {b.get('umpire') or 'none appointed'}; at most {b.get('limit')} live tokens")
        if b.get("proposal"):
            p = b["proposal"]
            say(f"proposed: {p.get('umpire')}, accepted by {', '.join(p.get('accepted') or []) or 'nobody yet'}")
        for t in b.get("tokens") or []:
            state = f"revoked {t['revoked_at']}" if t.get("revoked_at") else "live"
            say(f"  {t.get('token_id')}  made {t.get('created_at')}  {state}")

    return _emit(args, body, human)


def cmd_umpire_revoke(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    if bool(args.token_id) == bool(args.role):
        raise UsageError("give a TOKEN_ID (one token, from 'warlog umpire-tokens') or --role (end the role)")
    client = session.client(game_id, "admin")
    if args.role:
        result = client.revoke_umpire(game_id)
        return _emit(args, result, lambda r: _print_result(r, "the umpire's role ended; every umpire token revoked"))
    body = client.revoke_umpire_token(game_id, args.token_id)
    return _emit(args, body, lambda b: say(f"umpire token {b.get('token_id')} revoked {b.get('revoked_at')}"))


def cmd_state(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    if args.at is not None and (args.turn is not None or args.phase):
        raise UsageError("give either --at SEQ, or --turn (and --phase), not both")
    client = session.client(game_id, "read")
    body = client.state(game_id, at=args.at, turn=args.turn, phase=args.phase)

    def human(b: dict) -> None:
        summary, names = _game_and_names(client, game_id)
        state = b.get("state") or {}
        at = f" (right after event #{args.at})" if args.at is not None else ""
        if args.turn is not None:
            at = f" (the start of turn {args.turn}{', ' + args.phase + ' phase' if args.phase else ''})"
        say(f"game {b.get('game_id', game_id)} at version {b.get('version')}{at}")
        say(f"turn {b.get('turn', state.get('turn'))}, {b.get('phase', state.get('phase'))} phase; "
              f"to move: {', '.join(b.get('whose_move') or []) or 'nobody'}")
        if state.get("vp"):
            say(_vp_text(state["vp"], _vp_note(client, summary.get("ruleset"))))
        ended = b.get("ended") or state.get("ended")
        if ended:
            say("ended: " + (_ended_text(ended) if isinstance(ended, dict) else str(ended)))
        if isinstance(state.get("units"), dict) and state["units"]:
            for line in unit_lines(state["units"], names):
                say(line)
        if isinstance(state.get("control"), dict) and state["control"]:
            held: dict = {}
            both = contested_areas(state.get("units"))
            for area, side in state["control"].items():
                # FS 3.6: an area both sides stand in is contested, whoever held it last
                held.setdefault("contested" if area in both else side or "nobody", []).append(names.get(area, area))
            say("control: " + "; ".join(f"{side} {', '.join(areas)}" for side, areas in held.items()))
        round_ = b.get("sealed")
        if round_:
            waiting = round_["must_commit"] or round_["must_reveal"]
            say(f"sealed-orders round {round_['round']} ({round_['rule']}): committed "
                f"{', '.join(round_['committed']) or 'nobody'}; revealed {', '.join(round_['revealed']) or 'nobody'}; "
                f"{'to seal' if round_['must_commit'] else 'to reveal'}: {', '.join(waiting)}")
        for d in state.get("pending") or []:
            if isinstance(d, dict):
                say(f"waiting for {d.get('seat')}: {_pending_text(d)}; its answers: warlog legal {game_id}")
        shown = {"turn", "phase", "vp", "ended", "units", "control", "pending"}
        for key, value in state.items():
            if key not in shown and value not in (None, [], {}, ""):
                counters = _counter_lines(value) or _group_lines(value)
                if counters:  # STF's pool (what 'buy' takes) and groups: one a line, not one JSON line
                    say(f"{key} ({len(counters)}):")
                    for line in counters:
                        say(line)
                    continue
                say(f"{key}: {value if isinstance(value, str) else _compact(value)}")

    return _emit(args, body, human)


def _counter_lines(value) -> list[str] | None:
    """A state's set of counters ({id: {name, class, value, …}}, STF's pool) one a line, its id
    first (as orders name it): "  us-bb-iowa: BB Iowa (US), value 10, VP 10"; None for anything else."""
    if not isinstance(value, dict) or not value or not all(
            isinstance(c, dict) and "name" in c and "class" in c for c in value.values()):
        return None
    out = []
    for cid, c in value.items():
        facts = [f"{k if k != 'vp' else 'VP'} {c[k]}" for k in ("value", "vp", "speed") if c.get(k) is not None]
        nation = f" ({c['nation']})" if c.get("nation") else ""
        out.append(f"  {cid}: {c['class']} {c['name']}{nation}" + (f", {', '.join(facts)}" if facts else ""))
    return out


def contested_areas(units) -> set:
    """The areas where units of more than one side stand (FS 3.6 "contested"), from a state's units."""
    sides: dict = {}
    for unit in (units or {}).values() if isinstance(units, dict) else ():
        if isinstance(unit, dict) and unit.get("location") and not unit.get("eliminated") \
                and unit.get("in_play") is not False:
            sides.setdefault(unit["location"], set()).add(unit.get("side"))
    return {area for area, present in sides.items() if len(present) > 1}


def _group_lines(value) -> list[str] | None:
    """A state's groups ({id: {owner, kind, hex, units, …}}, STF's task forces and subrons) one a
    line, its id first (as orders name it), where it is, then what else is known of it:
    "  P1: Player tf at 2621; leader Commodore, points 20"; None for anything else. Its units
    are listed under 'units', by group."""
    if not isinstance(value, dict) or not value or not all(
            isinstance(g, dict) and isinstance(g.get("units"), list) and "hex" in g and "owner" in g
            for g in value.values()):
        return None
    out = []
    for gid, g in value.items():
        where = f"at {g['hex']}" if g.get("hex") else str(g.get("status") or "off the map")
        facts = [f"{k}{' in turn' if k == 'moved' else ''} "  # "moved" holds the turn it moved in (STF 7.1)
                 f"{v if isinstance(v, (str, int)) and not isinstance(v, bool) else _compact(v)}"
                 for k, v in g.items() if k not in ("id", "owner", "kind", "hex", "units", "status")
                 and v not in (None, False, [], {}, "")]
        out.append(f"  {gid}: {g['owner']} {g.get('kind') or 'group'} {where}"
                   + (f" ({g['status']})" if g.get("hex") and g.get("status") not in (None, "on map") else "")
                   + (f"; {', '.join(facts)}" if facts else ""))
    return out


def unit_lines(units: dict, names: dict) -> list[str]:
    """The units by where they are, one line an area (in the order the areas first appear), the
    units aboard a ship listed with it; then those out of play."""
    by_area: dict = {}
    out_of_play = []
    for uid, unit in units.items():
        unit = unit if isinstance(unit, dict) else {}
        label = names.get(uid, uid)
        steps = unit.get("steps")
        details = [str(unit["side"])] if unit.get("side") else []
        if isinstance(steps, int) and not unit.get("eliminated"):
            details.append(f"{steps} step{'s' if steps != 1 else ''}")
        if unit.get("aboard"):
            details.append(f"aboard {names.get(unit['aboard'], unit['aboard'])}")
        text = label + (f" ({', '.join(details)})" if details else "")
        where = unit.get("location")
        ship = units.get(unit.get("aboard")) if unit.get("aboard") else None
        if where is None and isinstance(ship, dict) and ship.get("in_play") is not False:
            where = ship.get("location")  # cargo (FS 3.3's SAS aboard Hermes) is where its ship is
        if where is None and isinstance(unit.get("group"), str):  # STF: a unit is where its group is
            where = f"group {unit['group']}"
        gone = "eliminated" if unit.get("eliminated") else "sunk" if unit.get("sunk") is True else None
        if gone or where is None or unit.get("in_play") is False:
            out_of_play.append(label + (f" ({gone})" if gone else ""))
        else:
            by_area.setdefault(where, []).append(text)
    lines = [f"units ({len(units)}):"]
    lines += [f"  {names.get(area, area)}: {', '.join(here)}" for area, here in by_area.items()]
    if out_of_play:
        lines.append(f"  not in play: {', '.join(out_of_play)}")
    return lines


def cmd_history(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    body = session.client(game_id, "read").history(game_id)
    if args.turn:  # the turns asked for, as the server gives them (a turn it has not: said so)
        body = {**body, "turns": [t for t in body.get("turns") or [] if t.get("turn") in args.turn]}

    def human(b: dict) -> None:
        if args.turn and not b["turns"]:
            say(f"no turn {', '.join(map(str, args.turn))} in this game yet")
        for turn in b.get("turns") or []:
            say(f"Turn {turn.get('turn')}")
            for phase in turn.get("phases") or []:
                say(f"  {phase.get('phase')}")
                heading = None
                for op in phase.get("operations") or []:
                    who = op.get("seat") or "the game"
                    if who != heading:  # one heading for a run of one seat's commands
                        say(f"    {who}")
                        heading = who
                    indent = "      "
                    if op.get("order_id"):  # each order of the run under its id
                        say(f"{indent}order {op['order_id']}")
                        indent += "  "
                    for line in op.get("lines") or []:
                        gone = " [superseded]" if line.get("superseded") else ""  # as dice marks a roll
                        say(indent + _event_line(line) + gone)
                        for note in line.get("annotations") or []:
                            say(indent + "  " + _annotation_line(note))

    return _emit(args, body, human)


def _annotation_line(note: dict) -> str:
    """One annotation under the event it is about: who (a spectator marked), private or not, the text."""
    who = note.get("author") if note.get("role") != "spectator" else f"spectator {note.get('author')}"
    return f"note #{note.get('seq')} by {who}{' (private)' if note.get('private') else ''}: {note.get('text')}"


def cmd_dice(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    body = session.client(game_id, "read").dice(game_id, seat=args.seat, turn=args.turn, purpose=args.purpose)

    def human(b: dict) -> None:
        rolls = b.get("rolls") or []
        if not rolls:
            say("no dice rolled" + (" that match" if (args.seat or args.turn or args.purpose) else ""))
        # a die rolled again (FS 11.3 4-1's leader, a 'replaces' re-roll) counts no more: say which
        # roll replaced it, where the re-roll alone said "re-roll of #N"
        again = {r["replaces"]: r.get("seq") for r in rolls if isinstance(r.get("replaces"), int)}
        for r in rolls:
            say(_roll_line(r, again.get(r.get("seq"))))
        if any(r.get("status") == "unrevealed" for r in rolls):
            say("unrevealed: its dice epoch's seed is revealed at the end of the turn; then this and "
                "'warlog verify' check each die against it (docs/dice.md)")

    return _emit(args, body, human)


def _roll_line(r: dict, rolled_again: int | None = None) -> str:
    text = r.get("text")
    if not text:
        dice = r.get("dice")
        faces = ", ".join(str(d.get("value", d) if isinstance(d, dict) else d) for d in dice or [])
        text = f"{r.get('seat')} rolled for {r.get('purpose') or 'no stated purpose'}: {faces}"
        if r.get("outcome"):
            text += f": {r['outcome']}"
    flags = []
    if r.get("superseded"):
        flags.append("superseded")
    if rolled_again is not None:
        flags.append(f"rolled again: #{rolled_again} counts")
    if r.get("status"):
        flags.append(str(r["status"]))
    where = f"turn {r.get('turn')}, epoch {r.get('epoch')}"
    return f"#{r.get('seq')} {text} ({where})" + (f" [{', '.join(flags)}]" if flags else "")


def cmd_watch(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    client = session.client(game_id, "read")
    seen = 0
    events = client.stream(game_id, last_event_id=args.from_seq, only_new=args.new)
    try:
        for event in events:
            if args.json:
                print(_json_text(event.data) if isinstance(event.data, dict) else terminal_safe(event.raw),
                      flush=True)
            else:
                say(f"#{event.id} {event.text}", flush=True)
            seen += 1
            if args.count and seen >= args.count:
                break
    except KeyboardInterrupt:
        pass
    finally:
        events.close()
    return EXIT_OK


def _export_from_server(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    count, hidden = write_lines(session.client(game_id, "read").export(game_id), args.output)
    if args.output:
        say(f"exported {count} events of game {game_id} from {session.server(game_id)} to {args.output}",
            file=sys.stderr)
        _say_what_the_export_is(args.output, hidden, game_id)
    return EXIT_OK


# ------------------------------------------------------------------------ replay, stats ----
JOB_POLL_SECONDS = 0.5
WORKER_HINT_SECONDS = 10.0  # still queued after this long: say that a worker must be running


def cmd_replay(args: argparse.Namespace) -> int:
    """Queue the replay job (api/jobs.py), follow it, download the page (or its frames)."""
    return _job_and_download(args, "replay", lambda c, g: c.request_replay(g), {"format": args.format},
                             args.format)


def cmd_stats(args: argparse.Namespace) -> int:
    """Queue the statistics job, follow it, download the JSON (or a chart as SVG)."""
    ext = f"{args.chart}.svg" if args.chart else "json"
    return _job_and_download(args, "stats", lambda c, g: c.request_statistics(g),
                             {"chart": args.chart} if args.chart else None, ext)


def _job_and_download(args: argparse.Namespace, what: str, ask, query: dict | None, ext: str) -> int:
    import time

    from api.client import promised

    _file_to_write(args.output)
    session = Session(args)
    game_id = session.game_id(args.game_id)
    client = session.client(game_id, "read")
    job = ask(client, game_id)
    job_id = promised(job, "job_id")
    output = args.output or f"{what}-{game_id[:8]}-v{job.get('version')}.{ext}"
    progress = _Progress(f"{what} of game {game_id} at version {job.get('version')} ({job.get('audience')} view)")
    started = time.monotonic()
    hinted = False
    while True:
        status = client.job(job_id)
        progress.show(status)
        if status.get("status") == "finished":
            break
        if status.get("status") in ("failed", "stopped", "canceled"):
            progress.close()
            raise JobFailed(f"the {what} job {status['status']}: {status.get('error') or 'no reason given'} "
                            f"(job {job_id})")
        waited = time.monotonic() - started
        if status.get("status") == "queued" and waited > WORKER_HINT_SECONDS and not hinted:
            progress.note(f"still queued after {waited:.0f} s: a worker must run ('warlog worker', or 'make run')")
            hinted = True
        if waited > args.wait:
            progress.close()
            worker = ("; a worker must run ('warlog worker', or 'make run')"
                      if status.get("status") == "queued" and not hinted else "")
            raise UsageError(f"the {what} job is still {status.get('status')} after {args.wait:g} s "
                             f"(job {job_id}){worker}; run the command again later: it finds the same job")
        time.sleep(JOB_POLL_SECONDS)
    progress.close()
    folder = os.path.dirname(os.path.abspath(output))
    fd, tmp = tempfile.mkstemp(prefix=f".{what}-", suffix="." + ext.rsplit(".", 1)[-1], dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            size = client.download(status.get("result_url") or job["result_url"], fh.write, query)
        os.replace(tmp, output)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    say(f"wrote {output} ({size} bytes): the {what} of game {game_id} at version {job.get('version')}",
        file=sys.stderr)
    if what == "replay" and ext == "html":
        say(f"open it in a browser; it works offline: file://{os.path.abspath(output)}", file=sys.stderr)
    return EXIT_OK


class JobFailed(Exception):
    """A job the worker ran and gave up on: exit 1, with its one-line error."""


class _Progress:
    """The job's status and progress on standard error: one line redrawn in a terminal, a line
    per change otherwise."""

    def __init__(self, what: str):
        self.what, self.last, self.tty = what, None, sys.stderr.isatty()

    def show(self, status: dict) -> None:
        text = f"{self.what}: {status.get('status')}"
        if status.get("status") in ("started", "finished") and status.get("progress") is not None:
            text += f" {status['progress']}%"
        if status.get("status") == "scheduled":
            text += f" (retrying; {status.get('retries_left')} retries left: {status.get('error') or ''})"
        if text == self.last:
            return
        self.last = text
        if self.tty:
            sys.stderr.write("\r\x1b[2K" + terminal_safe(text))
            sys.stderr.flush()
        else:
            say(text, file=sys.stderr)

    def note(self, text: str) -> None:
        if self.tty:
            sys.stderr.write("\n")
        say(text, file=sys.stderr)
        self.last = None

    def close(self) -> None:
        if self.tty and self.last:
            sys.stderr.write("\n")
            self.last = None


MOST_SECONDS = 86400.0  # a request's timeout or a job's wait of more than a day is a typo


def _seconds(text: str) -> float:
    """``--timeout`` and ``--wait``: a number of seconds from 0 to a day (NaN, a negative or an
    infinite time reached the socket, or never ended a wait)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 <= value <= MOST_SECONDS:  # NaN too
        raise argparse.ArgumentTypeError(f"a number of seconds from 0 to {MOST_SECONDS:g}, not {text!r}")
    return value


def _add_access(p: argparse.ArgumentParser, *, seat_choice: bool = True, json_flag: bool = True) -> None:
    g = p.add_argument_group("server and token (else WARLOG_SERVER / WARLOG_TOKEN, else the config file)")
    g.add_argument("--server", metavar="URL", help="the warlog server, e.g. http://127.0.0.1:8000")
    g.add_argument("--token", metavar="TOKEN", help="a bearer token (seat, umpire or admin)")
    if seat_choice:
        g.add_argument("--as", dest="as_seat", metavar="SEAT",
                       help="use the saved token and signing key of this seat (several seats of one game on "
                            "one machine); without --as: the seat this machine last joined the game as "
                            "(--token or WARLOG_TOKEN, when given, is the token sent)")
    g.add_argument("--timeout", type=_seconds, default=30.0, metavar="SECONDS", help="per request (default 30)")
    if json_flag:
        p.add_argument("--json", action="store_true", help="print the raw JSON response (for scripts)")
    p.set_defaults(client=True)


CLIENT_EPILOG = f"""\
Client commands (new, sandbox, kinds, join, games, show, legal, order, seal, reveal, state, history, dice,
watch, take-back, answer-take-back, concede, vacation, extend, claim-win, client-seed, standing, notify,
annotate, seat-token, spectator-token, spectator-tokens, spectator-revoke, umpire-token, umpire-propose,
umpire-answer, umpire-tokens, umpire-revoke, webhook, replay, stats, and export with a server) talk to a
warlog server: --server or WARLOG_SERVER, else the server saved with the game or in the config file.
The token is --token or WARLOG_TOKEN, else the one saved by 'new'/'join' in the config file
(WARLOG_CLIENT_CONFIG, default {DEFAULT_CONFIG}, written with mode 0600): the token of
the seat given with --as, else of the seat this machine last joined the game as (a read with no seat
saved uses the umpire's, else the admin token).

export: with --server or WARLOG_SERVER it downloads the game from that server; otherwise (or with
--local) it reads this machine's store, as the other server-side commands do.

Exit status: 0 done, 1 the server refused (the message names the rule), 2 usage or connection
error, or an answer not of the shape the API promises (the message names the request and the field)."""


def add_client_commands(sub) -> None:
    """The subcommands that play a game through the HTTP API."""
    p = sub.add_parser("new", help="create a game on a server; prints and saves invite codes and the admin token")
    p.add_argument("ruleset", help="e.g. freeform")
    p.add_argument("--option", action="append", metavar="KEY=VALUE",
                   help="a ruleset option; VALUE is read as JSON when it parses, as a comma list "
                        "otherwise (e.g. --option sides=Blue,Red --option last_turn=6)")
    p.add_argument("--options", metavar="JSON", help="all options as one JSON object")
    p.add_argument("--scenario", help="scenario name")
    p.add_argument("--public", action="store_true", help="anyone may read the game without a token")
    p.add_argument("--umpire", metavar="NAME", help="name the umpire from the start (recorded in the log; "
                                                     "every seat joins knowing it)")
    p.add_argument("--position", metavar="NAME", help="start from this named position of the ruleset "
                                                      "(GET /api/v1/rulesets/RULESET lists them)")
    p.add_argument("--days", type=int, metavar="N", help="a time control: N days per move (or per turn, --per turn)")
    p.add_argument("--per", choices=["move", "turn"], help="with --days: each order restarts the clock (move, "
                                                           "the default), or a new seat to move or game turn (turn)")
    p.add_argument("--reminder", type=int, action="append", metavar="HOURS",
                   help="with --days: remind the seats to move HOURS before a deadline (repeat it; default 24)")
    p.add_argument("--vacation-days", type=int, metavar="N", help="with --days: vacation days each seat may take")
    p.add_argument("--on-timeout", choices=["claim", "pass"],
                   help="with --days: at a deadline passed, the opponent may claim the win (claim, the default), "
                        "or the ruleset's pass is given (pass)")
    _add_access(p, seat_choice=False)
    p.set_defaults(func=cmd_new)

    p = sub.add_parser("sandbox", help="fork a sandbox of a game from its state right after event --at "
                                       "(its own seats and dice); prints and saves its invites and admin token")
    p.add_argument("game_id", help=GAME_ID_HELP)
    p.add_argument("--at", type=int, required=True, metavar="SEQ", help="the event the sandbox starts right after")
    p.add_argument("--public", action="store_true", help="anyone may read the sandbox without a token")
    p.add_argument("--umpire", metavar="NAME", help="name the sandbox's umpire from the start")
    _add_access(p)
    p.set_defaults(func=cmd_sandbox)

    p = sub.add_parser("kinds", help="the kinds of order a ruleset takes: rule, help, fields, words")
    p.add_argument("ruleset", help="e.g. freeform")
    _add_access(p, seat_choice=False)
    p.set_defaults(func=cmd_kinds)

    p = sub.add_parser("join", help="take a seat with an invite code; saves the seat's token",
                       description="Take a seat with an invite code and save the seat's token. The join "
                                   "goes with an Idempotency-Key kept here until its answer arrives: when "
                                    "the answer is lost, run the same command again, within 60 minutes of "
                                    "the join, to get the seat a fresh token (the lost one is revoked); "
                                    "later the server refuses it (409 invite_used).")
    p.add_argument("game_id", help=GAME_ID_HELP + "; or the invite link the lobby gives "
                                                  "(SERVER/games/GAME_ID#invite=CODE: the server, game and code)")
    p.add_argument("invite", nargs="?", help="the invite code (wli_…); or --as SEAT for an invite saved here")
    p.add_argument("--handle", required=True, help="your name in the game")
    p.add_argument("--as", dest="as_seat", metavar="SEAT",
                   help="the seat to take with its invite saved by 'new' on this machine (several seats here)")
    p.add_argument("--email", help="for turn notifications, once confirmed by the link of the mail sent to it; "
                                   "never shown to others")
    p.add_argument("--no-notify", dest="notify", action="store_false", default=None,
                   help="no e-mail notifications")
    p.add_argument("--no-key", action="store_true",
                   help="register no signing key: the seat's orders go unsigned (by default a new Ed25519 key "
                        "is made, kept in the client config, and signs every order)")
    p.add_argument("--client-seed", help="text mixed into the dice of every later epoch")
    _add_access(p, seat_choice=False)
    p.set_defaults(func=cmd_join)

    p = sub.add_parser("games", help="list public games and the game of your token",
                       description="List the server's public games, the game of --token / WARLOG_TOKEN when "
                                   "one is given, and the games saved in the config file for this server "
                                   "(private ones too, read with their saved tokens), one summary line each; "
                                   "the options filter all of them. Sandboxes are listed only with --sandbox.")
    p.add_argument("--status", choices=["waiting", "active", "ended"],
                   help="only games waiting for seats, under way, or ended")
    p.add_argument("--ruleset", help="only games of this ruleset, e.g. falklands")
    p.add_argument("--player", help="a player's handle")
    p.add_argument("--turn-of", help="games where it is this handle's move")
    p.add_argument("--sandbox", action="store_true", help="list sandboxes too (left out by default)")
    _add_access(p, seat_choice=False)
    p.set_defaults(func=cmd_games)

    p = sub.add_parser("show", help="a game's summary: status, seats, whose move, VP, chain head")
    p.add_argument("game_id", help=GAME_ID_HELP)
    _add_access(p)
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("legal", help="the orders your seat may give now")
    p.add_argument("game_id", help=GAME_ID_HELP)
    _add_access(p)
    p.set_defaults(func=cmd_legal)

    p = sub.add_parser(
        "order", help="give an order, e.g. 'order GAME roll 2d6 --purpose fire'",
        description="Give an order. KIND and its words build it ('warlog kinds RULESET' lists a ruleset's kinds; "
                    "freeform's words: roll DICE, show SEQ, note TEXT, vp SIDE DELTA, advance, end [WINNER|draw]); "
                    "any other kind takes its fields as --set KEY=VALUE. "
                    "Or give the whole order as --json '{\"kind\": ...}'. The order id (Idempotency-Key) "
                    "is the seat's pending one unless --order-id is given: a fresh uuid4, kept in the client "
                    "config until an order is accepted under it, so a refused or lost order's next attempt "
                    "has the same id and so the same dice; the same id again records nothing new.")
    p.add_argument("game_id", help=GAME_ID_HELP)
    p.add_argument("kind", nargs="?", help="roll, show, note, vp, advance, end, or a ruleset's own kind")
    # default=[]: a '*' positional without a default counts as required, and parsed intermixed
    # (_Intermixed) a missing game id was reported as "required: game_id, words"
    p.add_argument("words", nargs="*", default=[], help="the kind's arguments (see above)")
    p.add_argument("--purpose", help="what a roll is for")
    p.add_argument("--target", metavar="CMP", help="a roll's target, e.g. '>=8'")
    p.add_argument("--modifier", action="append", metavar="'+1 REASON'", help="a target modifier (repeatable)")
    p.add_argument("--rule", help="the rule number the order applies, e.g. 8.2")
    p.add_argument("--unit", action="append", help="a unit the roll is for (repeatable)")
    p.add_argument("--replaces", type=int, metavar="SEQ", help="re-roll: the seq of the roll it replaces")
    p.add_argument("--sealed", action="store_true",
                   help="a sealed roll: only you (and umpires) see its dice until the game ends (freeform FF 9)")
    p.add_argument("--text", help="a note's text")
    p.add_argument("--reason", help="why (vp, end)")
    p.add_argument("--winner", help="end: the winning side (or 'draw')")
    p.add_argument("--level", help="end: the level of victory")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="any order field; VALUE is read as JSON when it parses (repeatable)")
    p.add_argument("--order-id", help="the order's id (Idempotency-Key); default the seat's pending id")
    p.add_argument("--if-match", type=int, metavar="VERSION",
                   help="record only if the game is still at this version")
    _add_access(p, json_flag=False)
    p.add_argument("--json", dest="order_json", nargs="?", const=None, default=None, metavar="ORDER",
                   action=_JsonOption,
                   help="print the raw JSON response; with ORDER (a JSON object), send that order")
    p.set_defaults(func=cmd_order, json_out=False)

    p = sub.add_parser(
        "seal", help="seal your orders for the open sealed-orders round (only their hash is sent)",
        description="Seal orders (docs/api.md, Sealed orders): each ORDER is a JSON object as 'order --json' "
                    "takes it, carried out in the order given. A salt of 256 random bits is made here and kept "
                    "with the orders in the client config (mode 0600) until 'warlog reveal'; only the "
                    "commitment, SHA-256 of {game, seat, round, orders, salt}, is sent, signed with the seat's "
                    "key when the config keeps one. Sealing the same orders again sends the same commitment; "
                    "other orders for the same round are refused.")
    p.add_argument("game_id", help=GAME_ID_HELP)
    p.add_argument("orders", nargs="*", default=[], metavar="ORDER", help="an order as a JSON object, e.g. "
                                                                "'{\"kind\": \"roll\", \"dice\": \"2d6\", "
                                                                "\"purpose\": \"fire\"}'")
    p.add_argument("--none", action="store_true", help="seal no orders this round")
    _add_access(p)
    p.set_defaults(func=cmd_seal)

    p = sub.add_parser("reveal", help="reveal the orders you sealed for the open round, once every seat has sealed",
                       description="Reveal the orders and salt 'warlog seal' kept (signed with the seat's key when "
                                   "the config keeps one); forgotten from the config once recorded.")
    p.add_argument("game_id", help=GAME_ID_HELP)
    _add_access(p)
    p.set_defaults(func=cmd_reveal)

    p = sub.add_parser("state", help="the game's state now, or as it was (--at SEQ, --turn N [--phase P])")
    p.add_argument("game_id", help=GAME_ID_HELP)
    p.add_argument("--at", type=int, metavar="SEQ", help="the state right after event SEQ")
    p.add_argument("--turn", type=int, help="the state at the start of this turn")
    p.add_argument("--phase", help="with --turn: the start of this phase")
    _add_access(p)
    p.set_defaults(func=cmd_state)

    p = sub.add_parser("history", help="the game turn by turn, phase by phase, order by order")
    p.add_argument("game_id", help=GAME_ID_HELP)
    p.add_argument("--turn", type=int, action="append", metavar="N",
                   help="only this game turn (repeat for several); a whole game runs to thousands of lines")
    _add_access(p)
    p.set_defaults(func=cmd_history)

    p = sub.add_parser("dice", help="every roll with its purpose and outcome")
    p.add_argument("game_id", help=GAME_ID_HELP)
    p.add_argument("--seat", help="only this seat's rolls")
    p.add_argument("--turn", type=int, help="only the rolls of this game turn")
    p.add_argument("--purpose", help="rolls whose purpose contains this text")
    _add_access(p)
    p.set_defaults(func=cmd_dice)

    p = sub.add_parser("watch", help="follow the game live, one line per event, until it ends (Ctrl-C stops)")
    p.add_argument("game_id", help=GAME_ID_HELP)
    p.add_argument("--from", dest="from_seq", type=int, metavar="SEQ", help="start after this event")
    p.add_argument("--new", action="store_true", help="only events recorded from now on")
    p.add_argument("--count", type=int, metavar="N", help="stop after N events")
    _add_access(p)
    p.set_defaults(func=cmd_watch)

    p = sub.add_parser("take-back", help="ask to take back your last order")
    p.add_argument("game_id", help=GAME_ID_HELP)
    p.add_argument("--reason", default="", help="why, for the opponent who answers (e.g. misclick)")
    _add_access(p)
    p.set_defaults(func=cmd_take_back)

    p = sub.add_parser("answer-take-back", help="accept or decline the opponent's take-back request")
    p.add_argument("game_id", help=GAME_ID_HELP)
    choice = p.add_mutually_exclusive_group(required=True)
    choice.add_argument("--accept", dest="accept", action="store_true",
                        help="the opponent's last order is taken back")
    choice.add_argument("--decline", dest="accept", action="store_false", help="the order stands")
    _add_access(p)
    p.set_defaults(func=cmd_answer_take_back)

    p = sub.add_parser("concede", help="concede the game")
    p.add_argument("game_id", help=GAME_ID_HELP)
    _add_access(p)
    p.set_defaults(func=cmd_concede)

    p = sub.add_parser("seat-token", help="replace your seat's token (one that leaked): the old one stops "
                                          "working, the new one is saved here")
    p.add_argument("game_id", help=GAME_ID_HELP)
    _add_access(p)
    p.set_defaults(func=cmd_seat_token)

    p = sub.add_parser("annotate", help="comment on an event of the log (public, or --private: you and the umpire)")
    p.add_argument("game_id", help=GAME_ID_HELP)
    p.add_argument("seq", type=int, help="the seq of the event (warlog history lists them)")
    p.add_argument("text", help="the comment")
    p.add_argument("--private", action="store_true", help="only your seat and the umpire read it")
    p.add_argument("--annotation-id", help="the annotation's id (Idempotency-Key; default: a fresh one): "
                                           "sending it again records nothing")
    _add_access(p)
    p.set_defaults(func=cmd_annotate)

    p = sub.add_parser("spectator-token", help="(admin) issue a named spectator token: it reads the game, "
                                               "and annotates it once it has ended")
    p.add_argument("game_id", help=GAME_ID_HELP)
    p.add_argument("name", help="the spectator's name (revoke every token of a name with spectator-revoke --name)")
    p.add_argument("--keep", action="store_true", help="save it in this machine's config for this game")
    _add_access(p)
    p.set_defaults(func=cmd_spectator_token)

    p = sub.add_parser("spectator-tokens", help="list the game's spectator tokens (needs the admin token)")
    p.add_argument("game_id", help=GAME_ID_HELP)
    _add_access(p, seat_choice=False)
    p.set_defaults(func=cmd_spectator_tokens)

    p = sub.add_parser("spectator-revoke", help="revoke one spectator token, or every one of a name (--name; "
                                                "needs the admin token): it stops working at once; its "
                                                "annotations stay in the log")
    p.add_argument("game_id", help=GAME_ID_HELP)
    p.add_argument("token_id", nargs="?", help="the token's id, from 'warlog spectator-tokens'")
    p.add_argument("--name", help="every token issued under this name")
    _add_access(p, seat_choice=False)
    p.set_defaults(func=cmd_spectator_revoke)

    p = sub.add_parser("vacation", help="announce days of vacation (a game with a time control)")
    p.add_argument("game_id", help=GAME_ID_HELP)
    p.add_argument("days", type=int, help="whole days, within your allowance left")
    _add_access(p)
    p.add_argument("--key", help="the command's Idempotency-Key (default: a fresh one, shown when no answer comes); "
                                 "the same command sent again under it is recorded once")
    p.set_defaults(func=cmd_vacation)

    p = sub.add_parser("extend", help="give the seats to move more days (a game with a time control)")
    p.add_argument("game_id", help=GAME_ID_HELP)
    p.add_argument("days", type=int, help="whole days more")
    _add_access(p)
    p.add_argument("--key", help="the command's Idempotency-Key (default: a fresh one, shown when no answer comes); "
                                 "the same command sent again under it is recorded once")
    p.set_defaults(func=cmd_extend)

    p = sub.add_parser("claim-win", help="claim the win: the seats to move let their deadline pass")
    p.add_argument("game_id", help=GAME_ID_HELP)
    _add_access(p)
    p.set_defaults(func=cmd_claim_win)

    p = sub.add_parser("client-seed", help="change your client seed (mixed into the dice from the next epoch)")
    p.add_argument("game_id", help=GAME_ID_HELP)
    p.add_argument("client_seed", help="any text of yours (docs/dice.md)")
    _add_access(p)
    p.set_defaults(func=cmd_client_seed)

    p = sub.add_parser("standing", help="your seat's standing orders: list, --set ID --kind KIND --policy JSON, "
                                        "or --cancel ID")
    p.add_argument("game_id", help=GAME_ID_HELP)
    action = p.add_mutually_exclusive_group()
    action.add_argument("--set", metavar="ID", help="set (or replace) the standing order named ID")
    action.add_argument("--cancel", metavar="ID", help="cancel the standing order named ID")
    p.add_argument("--kind", metavar="DECISION_KIND", help="the kind of decision it answers (with --set)")
    p.add_argument("--policy", metavar="JSON", help="the policy, in the ruleset's form (with --set); a seat with "
                                                    "a key signs it as the rules record it (a refusal shows that form)")
    _add_access(p)
    p.set_defaults(func=cmd_standing)

    p = sub.add_parser("notify", help="your seat's notifications: show them, or change the ones given")
    p.add_argument("game_id", help=GAME_ID_HELP)
    p.add_argument("--email", help="where mails go, once confirmed by the link of the mail sent to it (given "
                                   "again: another such mail); never shown to others")
    onoff = p.add_mutually_exclusive_group()
    onoff.add_argument("--on", dest="notify", action="store_true", default=None, help="mails on")
    onoff.add_argument("--off", dest="notify", action="store_false", help="no mails")
    p.add_argument("--events", metavar="LIST", help="which reasons notify you, comma-separated: "
                                                     "your_move,decision,take_back,game_over")
    p.add_argument("--channels", metavar="LIST", help="email, webhook or email,webhook")
    digest = p.add_mutually_exclusive_group()
    digest.add_argument("--digest", dest="digest", action="store_true", default=None,
                        help="one mail a day instead of one per event")
    digest.add_argument("--no-digest", dest="digest", action="store_false", help="one mail per event")
    p.add_argument("--webhook", metavar="URL", help="your own webhook ('' removes it); a new one gets a secret, "
                                                    "printed once")
    p.add_argument("--webhook-secret", metavar="SECRET", help="the HMAC key of --webhook (else generated)")
    p.add_argument("--webhook-format", metavar="FORMAT", help="what your webhook gets: warlog (its JSON, the "
                                                              "default), discord or slack (a chat message, for a "
                                                              "Discord or Slack channel's webhook URL)")
    _add_access(p)
    p.set_defaults(func=cmd_notify)

    p = sub.add_parser("replay", help="make and download the game's replay: one offline HTML page (or --format json)",
                       description="Queue the replay job on the server (POST .../replays), show its progress "
                                   "until a worker has made it, and download it. The replay shows what a "
                                   "spectator may see, or everything with an umpire token (docs/workers.md).")
    p.add_argument("game_id", help=GAME_ID_HELP)
    p.add_argument("-o", "--output", help="file to write (default: replay-GAME-vVERSION.html)")
    p.add_argument("--format", choices=["html", "json"], default="html", help="html (the page) or json (the frames)")
    p.add_argument("--wait", type=_seconds, default=600.0, metavar="SECONDS", help="give up waiting after this long")
    _add_access(p, json_flag=False)
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("stats", help="make and download the game's statistics (JSON, or --chart faces|vp as SVG)",
                       description="Queue the statistics job (POST .../statistics), show its progress until a "
                                   "worker has made it, and download it: die faces, luck per seat, the VP track.")
    p.add_argument("game_id", help=GAME_ID_HELP)
    p.add_argument("-o", "--output", help="file to write (default: stats-GAME-vVERSION.json)")
    p.add_argument("--chart", choices=["faces", "vp"], help="an SVG chart instead of the JSON")
    p.add_argument("--wait", type=_seconds, default=600.0, metavar="SECONDS", help="give up waiting after this long")
    _add_access(p, json_flag=False)
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("umpire-token", help="issue an umpire token (needs the admin token, and an umpire the "
                                            "seats agreed to); saves it")
    p.add_argument("game_id", help=GAME_ID_HELP)
    _add_access(p, seat_choice=False)
    p.set_defaults(func=cmd_umpire_token)

    p = sub.add_parser("umpire-propose", help="propose an umpire (needs the admin token); every seat then answers")
    p.add_argument("game_id", help=GAME_ID_HELP)
    p.add_argument("name", help="who the umpire is, as the seats will know them")
    _add_access(p, seat_choice=False)
    p.set_defaults(func=cmd_umpire_propose)

    p = sub.add_parser("umpire-answer", help="accept or decline the proposed umpire, for your seat")
    p.add_argument("game_id", help=GAME_ID_HELP)
    choice = p.add_mutually_exclusive_group(required=True)
    choice.add_argument("--accept", dest="accept", action="store_true",
                        help="your seat accepts the proposed umpire, who sees everything once every seat has")
    choice.add_argument("--decline", dest="accept", action="store_false",
                        help="your seat declines the proposed umpire")
    _add_access(p)
    p.set_defaults(func=cmd_umpire_answer)

    p = sub.add_parser("webhook", help="set or remove the game's webhook (needs the admin token); deliveries "
                                       "are signed as Standard Webhooks says")
    p.add_argument("game_id", help=GAME_ID_HELP)
    p.add_argument("url", nargs="?", help="the receiver's http(s) URL")
    p.add_argument("--format", help="the body: warlog (its JSON, the default), discord or slack (a chat "
                                    "message naming the game, the seats to move and the game's page)")
    p.add_argument("--secret", metavar="WHSEC", help="'whsec_' and the base64 of 24 to 64 bytes "
                                                    "(default: the server makes one and prints it once)")
    p.add_argument("--remove", action="store_true", help="remove the webhook")
    _add_access(p, seat_choice=False)
    p.set_defaults(func=cmd_webhook)

    p = sub.add_parser("umpire-tokens", help="list the game's umpire tokens (needs the admin token)")
    p.add_argument("game_id", help=GAME_ID_HELP)
    _add_access(p, seat_choice=False)
    p.set_defaults(func=cmd_umpire_tokens)

    p = sub.add_parser("umpire-revoke", help="revoke one umpire token, or end the umpire's role (--role)")
    p.add_argument("game_id", help=GAME_ID_HELP)
    p.add_argument("token_id", nargs="?", help="the token's id, from 'warlog umpire-tokens'")
    p.add_argument("--role", action="store_true", help="end the role: recorded in the log, every token revoked")
    _add_access(p, seat_choice=False)
    p.set_defaults(func=cmd_umpire_revoke)


class _JsonOption(argparse.Action):
    """``--json`` alone: JSON output; ``--json ORDER``: JSON output and this order."""

    def __call__(self, parser, namespace, values, option_string=None):
        namespace.json_out = True
        if values is not None:
            namespace.order_json = values


class _Intermixed(argparse.ArgumentParser):
    """A subcommand whose words may come on either side of its options, as a player writes them
    (`order GAME --as Red roll 2d6`): argparse alone gives the optional words their (empty) values
    at the first word and then refuses the others as unrecognized."""

    _mixing = False

    def parse_known_args(self, args=None, namespace=None):
        if self._mixing:  # parse_known_intermixed_args parses with this method, twice
            return super().parse_known_args(args, namespace)
        self._mixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._mixing = False


class _Warlog(argparse.ArgumentParser):
    """The top parser: a mistyped command is answered in one line naming the command meant, not
    with the usage of every command and the list of all of them."""

    def error(self, message: str):
        typed = re.match(r"argument command: invalid choice: '(.*?)'", message)
        if typed is None:
            super().error(message)
        word = typed.group(1)
        commands = next(a.choices for a in self._actions if isinstance(a, argparse._SubParsersAction))
        meant = difflib.get_close_matches(word.replace("_", "-"), list(commands), n=1)
        hint = f"; did you mean '{meant[0]}'?" if meant else ""
        self.exit(EXIT_USAGE, f"warlog: no command '{word}'{hint} ('warlog --help' lists them)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Warlog(prog="warlog", description="Warlog: verifiable PBEM game logs.",
                     epilog=CLIENT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Intermixed)

    p = sub.add_parser("serve", help="create the schema and serve the web app with gunicorn")
    # Empty is unset, as in api/gunicorn_conf.py; a malformed PORT or WEB_CONCURRENCY is a usage
    # error of `warlog serve` (argparse applies `type` to a string default), not of every command.
    p.add_argument("--host", default=os.environ.get("WARLOG_HOST", "").strip() or "127.0.0.1",
                   help="the address to listen on (default WARLOG_HOST, else 127.0.0.1)")
    p.add_argument("--port", type=int, default=os.environ.get("PORT", "").strip() or "8000",
                   help="the port (default PORT, else 8000)")
    p.add_argument("--workers", type=int, default=os.environ.get("WEB_CONCURRENCY", "").strip() or "2",
                   help="gunicorn worker processes (default WEB_CONCURRENCY, else 2)")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("migrate", help="create the event store and seed tables (once, before workers start)")
    p.set_defaults(func=cmd_migrate)

    p = sub.add_parser("copy-store", help="copy the whole store (WARLOG_DATA_DIR or WARLOG_DATABASE_URL) into an "
                                          "empty PostgreSQL schema, games still playable; every process stopped",
                       description="Copy this machine's store (SQLite under WARLOG_DATA_DIR, or WARLOG_DATABASE_URL) "
                                   "into an empty PostgreSQL schema: the events with their notification ids, the "
                                   "snapshots, the seeds and every warlog table. The target is migrated first; "
                                   "every game's chain is checked there, and each table's rows are counted on both "
                                   "sides. Stop every warlog process first. The source is only read; the server "
                                   "key file stays where it is (docs/operations.md).")
    p.add_argument("--to", required=True, metavar="URL",
                   help="the target: postgresql://USER[:PASSWORD]@HOST[:PORT]/DB[?schema=NAME], an empty schema")
    p.set_defaults(func=cmd_copy_store)

    p = sub.add_parser("export", help="write a game as JSON Lines (docs/dice.md), from a server or the local store",
                       description="Write a game as JSON Lines (docs/dice.md). With --server URL or "
                                   "WARLOG_SERVER set, the game is downloaded from that server (with the "
                                   "token of --token, WARLOG_TOKEN or the config file, when there is one); "
                                   "otherwise, or with --local, it is read from this machine's store "
                                   "(WARLOG_DATA_DIR / WARLOG_DATABASE_URL). A server saved in the client "
                                   "config file alone does not switch export to the server.")
    p.add_argument("game_id", help=GAME_ID_HELP)
    p.add_argument("-o", "--output", help="file to write (default: standard output)")
    p.add_argument("--local", action="store_true", help="read the local store even when WARLOG_SERVER is set")
    _add_access(p, json_flag=False)
    p.set_defaults(func=cmd_export, client=False)

    p = sub.add_parser("import", help="store an exported game, as a record (read and verified, not continued: "
                                      "its clock does not run here); refuses a file that does not verify")
    p.add_argument("file", help="an umpire's export (JSON Lines, as 'warlog export' writes it with an umpire token)")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("verify", help="check an export offline: the hash chain, every revealed die and "
                                      "every signed order; with --head, against a signed head kept")
    p.add_argument("file", help="an export (JSON Lines, as 'warlog export' writes it)")
    p.add_argument("--head", metavar="SIGNED_HEAD",
                   help="a signed head the server handed out (JSON text or a file; 'warlog heads GAME'): its "
                        "signature by the server key and the file's line at its seq must match")
    p.add_argument("--server-key", metavar="KEY",
                   help="the server key (GET /api/v1/server-key) for a file without a header line")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("heads", help="print the last signed head kept for a game (for 'verify --head')")
    p.add_argument("game_id", help="the game's id, or its start (4 characters or more) as the config file has it")
    p.set_defaults(func=cmd_heads)

    p = sub.add_parser("check", help="verify a stored game's log in place, as an export would be")
    p.add_argument("game_id", help="the game's id, or its start (8 hex digits or more) as this machine's store "
                                   "or the client config has it")
    p.add_argument("--accept-damage", metavar="REASON",
                   help="record the operator's decision to play on from the damaged stored log as it is")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("projector", help="keep the read models current (a Procfile process); SIGTERM stops it")
    p.set_defaults(func=cmd_projector)

    p = sub.add_parser("worker", help="run an rq worker for the warlog queues (the dispatcher is 'warlog dispatcher')")
    p.add_argument("--queues", nargs="+", metavar="NAME", help="queues to serve (default: WARLOG_QUEUE and "
                                                               "WARLOG_NOTIFY_QUEUE, both 'warlog' unless set)")
    p.add_argument("--burst", action="store_true", help="quit when the queues are empty")
    # A worker ran the dispatcher until it became a process of its own; old command lines still work.
    p.add_argument("--no-dispatch", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--webhooks", action="store_true", help="serve the webhook queue only (WARLOG_WEBHOOK_QUEUE, "
                                                           "default '<WARLOG_QUEUE>-webhooks')")
    p.set_defaults(func=cmd_worker)

    p = sub.add_parser("dispatcher", help="follow the log: notifications, replays of ended games, the clock sweep "
                                          "(a Procfile process); SIGTERM stops it")
    p.set_defaults(func=cmd_dispatcher)

    p = sub.add_parser("status", help="is every process doing its work? the log's head, the projector's and the "
                                      "dispatcher's place in it, rq's queues and workers (exit 1 when not)")
    p.add_argument("--stalled-after", type=float, default=60.0, metavar="SECONDS",
                   help="a follower whose first unread event is older than this is stalled (default 60)")
    p.add_argument("--json", dest="json_out", action="store_true", help="print the status as JSON")
    p.set_defaults(func=cmd_status)

    p = sub.add_parser("rebuild-projections", help="drop the read models and fold them again from the log")
    p.add_argument("--game", metavar="ID", help="rebuild this game only")
    p.set_defaults(func=cmd_rebuild_projections)

    p = sub.add_parser("rules", help="a ruleset's rules coverage: each rule number's status and the counts (offline)")
    p.add_argument("ruleset", help="the ruleset's name (falklands, freeform, proving, ...)")
    p.add_argument("--tests", action="store_true", help="list the tests that check each rule")
    p.add_argument("--json", dest="json_out", action="store_true", help="print the manifest and counts as JSON")
    p.set_defaults(func=cmd_rules)

    add_client_commands(sub)
    return parser


def _quiet_stdout() -> None:
    """Point standard output at /dev/null, so nothing more is written to a pipe nobody reads."""
    with contextlib.suppress(OSError, ValueError, AttributeError):  # not a real file (a test's capture)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def main(argv: Sequence[str] | None = None) -> int:
    from api.client import ClientError, ProblemError
    from domain.errors import WarlogError

    args = build_parser().parse_args(argv)
    _warned.clear()
    try:
        code = args.func(args)
        sys.stdout.flush()  # a reader gone away (| head) is found here, not at the interpreter's exit
        return code
    except BrokenPipeError:
        _quiet_stdout()
        return 128 + signal.SIGPIPE  # as a shell reports a command the pipe's reader stopped
    except ProblemError as exc:
        if getattr(args, "json", False) and exc.body:
            _print_json(exc.body)
        say(f"warlog {args.command}: {_problem_text(exc)}", file=sys.stderr)
        return EXIT_FAILED
    except JobFailed as exc:
        say(f"warlog {args.command}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except (ClientError, UsageError) as exc:
        say(f"warlog {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (TypeError, AttributeError) as exc:
        if not getattr(args, "client", False):
            raise
        # A value of an answer read as the type the API promises, which it is not: true, false or
        # null, which answer_of cannot mark (it names the field of the other shapes, above).
        say(f"warlog {args.command}: the server's answer was not what the API promises: a value of another "
            f"type than the API gives ({type(exc).__name__}: {exc}; if the answer is as the API says, this is a "
            f"bug of the warlog command: please report it)", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        if not getattr(args, "client", False):
            raise
        return 130
    except WarlogError as exc:
        say(f"warlog {args.command}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except OSError as exc:
        say(f"warlog {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _problem_text(exc) -> str:
    """``<detail> [<rule>]``, without the rule twice when the detail starts with it."""
    detail = exc.detail
    if exc.rule and detail.startswith(f"{exc.rule}: "):
        detail = detail[len(exc.rule) + 2:]
    errors = exc.body.get("errors") if isinstance(exc.body, dict) else None
    if isinstance(errors, dict) and errors:
        said = {field: " ".join(map(str, msgs)) if isinstance(msgs, list) else str(msgs)
                for field, msgs in errors.items()}
        said = {field: text for field, text in said.items() if text not in detail}  # the detail may say it already
        if said:
            detail += " (" + "; ".join(f"{field}: {text}" for field, text in said.items()) + ")"
    return f"{detail} [{exc.rule}]" if exc.rule else detail


if __name__ == "__main__":
    raise SystemExit(main())
