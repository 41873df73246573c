"""The ``warlog`` command: serve, migrate, the offline tools export / import / verify / check, and
the client commands that play a game through a server's HTTP API (api/client.py)."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import uuid
from typing import Sequence

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _service():
    from domain.service import Warlog

    return Warlog()


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


def cmd_export(args: argparse.Namespace) -> int:
    """From a server when --server or WARLOG_SERVER is given (and not --local), else the local store."""
    if not args.local and _server_from_env_or_option(args):
        return _export_from_server(args)
    service = _service()
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    try:
        count = 0
        for line in service.export(args.game_id):
            out.write(line + "\n")
            count += 1
    finally:
        if args.output:
            out.close()
    if args.output:
        print(f"exported {count} events of game {args.game_id} to {args.output}", file=sys.stderr)
    return EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    with open(args.file, encoding="utf-8") as fh:
        game_id = _service().import_lines(fh)
    print(f"imported game {game_id}")
    return EXIT_OK


def cmd_verify(args: argparse.Namespace) -> int:
    from domain.verify import verify_text

    with open(args.file, encoding="utf-8") as fh:
        report, _ = verify_text(fh)
    print(report.summary())
    return EXIT_OK if report.ok else EXIT_FAILED


def cmd_check(args: argparse.Namespace) -> int:
    """Verify a stored log; a failure is recorded and stops the game until an operator accepts
    it (``--accept-damage REASON``, docs/operations.md)."""
    service = _service()
    report = service.check_integrity(args.game_id)
    print(report.summary())
    if args.accept_damage is not None:
        if service.damage.of(args.game_id).open:
            damage = service.accept_damage(args.game_id, args.accept_damage)
            print(f"accepted by the operator: line(s) {', '.join(str(d.seq) for d in damage.lines)} "
                  f"({args.accept_damage.strip()}); the game takes orders again")
        else:
            print("nothing to accept: no damaged line of this game waits for a decision")
    damage = service.damage.of(args.game_id)
    if damage.open:
        print(f"DAMAGED: the game takes no orders until an operator acts (first line {damage.open[0].seq}); "
              f"warlog check {args.game_id} --accept-damage REASON plays on from the stored log")
    return EXIT_OK if report.ok else EXIT_FAILED


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


def cmd_projector(args: argparse.Namespace) -> int:
    """Keep every read model current: catch up, sleep WARLOG_PROJECTOR_POLL_SECONDS, repeat;
    SIGTERM or SIGINT stops it between batches."""
    import logging
    import signal

    from projections.runner import Projections, Projector

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    service = _service_when_up()
    from api.app import wait_for_schema

    wait_for_schema(service)
    projector = Projector(Projections(service), float(os.environ.get("WARLOG_PROJECTOR_POLL_SECONDS", "0.5") or 0.5))
    signal.signal(signal.SIGTERM, projector.stop)
    signal.signal(signal.SIGINT, projector.stop)
    try:
        projector.run()
    finally:
        service.close()
    return EXIT_OK


def cmd_worker(args: argparse.Namespace) -> int:
    """An rq worker on the configured Redis (REDIS_URL) for the warlog queues, with the scheduler
    (retries with backoff are scheduled) and, unless --no-dispatch, the notification dispatcher
    as a thread (workers/dispatch.py; several workers may each run one)."""
    import logging
    import threading

    from rq import Queue, Worker

    from workers import notify_jobs

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    conn = notify_jobs.redis_connection()
    names = args.queues or list(dict.fromkeys(
        [os.environ.get("WARLOG_QUEUE", "").strip() or "warlog", notify_jobs.queue_name()]))
    dispatcher = None
    if not args.no_dispatch:
        from workers.dispatch import Dispatcher
        from workers.notify import SmtpSettings

        service = _service_when_up()
        from api.app import wait_for_schema

        wait_for_schema(service)
        dispatcher = Dispatcher(service, notify_jobs.enqueuer(conn), email_enabled=SmtpSettings.from_env() is not None)
        poll = float(os.environ.get("WARLOG_DISPATCH_POLL_SECONDS", "1") or 1)
        threading.Thread(target=dispatcher.run, args=(poll,), name="warlog-dispatch", daemon=True).start()
    worker = Worker([Queue(n, connection=conn) for n in names], connection=conn)
    try:
        worker.work(burst=args.burst, with_scheduler=True, logging_level="INFO")
    finally:
        if dispatcher is not None:
            dispatcher.stop()
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


def _server_from_env_or_option(args: argparse.Namespace) -> str | None:
    return getattr(args, "server", None) or os.environ.get("WARLOG_SERVER") or None


class Session:
    """One client command's view of the options, the environment and the config file."""

    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.path = config_path()
        self.config = load_config(self.path)

    # ------------------------------------------------------------------------------ games --
    def game_id(self, given: str) -> str:
        """The canonical id: a full UUID as the server writes it, or the one saved game id that
        starts with ``given``."""
        import uuid

        try:
            return str(uuid.UUID(given))
        except ValueError:
            pass
        matches = [g for g in self.config["games"] if g.startswith(given.lower())] if len(given) >= 4 else []
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise UsageError(f"{given!r} starts {len(matches)} saved game ids; give more of it")
        return given  # the server says "no game" in its own words

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
        """``need``: "seat" (orders), "admin" (umpire tokens) or "read" (any token, or none)."""
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
def _print_json(body) -> None:
    print(json.dumps(body, indent=2, ensure_ascii=False))


def _event_line(line: dict) -> str:
    return f"#{line.get('seq', '?')} {line.get('text') or line.get('type', '')}"


def _print_result(result: dict, what: str = "") -> None:
    """A command's recorded events, then the version and chain head to compare with the others."""
    if result.get("replayed"):
        print(f"(replayed: order {result.get('order_id')} was recorded before; nothing new was recorded)")
    elif what:
        print(what)
    for line in result.get("events") or []:
        print("  " + _event_line(line))
    print(f"version {result.get('version')}, chain head {result.get('chain_head')}")


def _emit(args: argparse.Namespace, body, human) -> int:
    if getattr(args, "json", None):
        _print_json(body)
    else:
        human(body)
    return EXIT_OK


def _value(raw: str):
    """An option value: JSON when it parses (numbers, true, lists), a comma list, else text."""
    try:
        return json.loads(raw)
    except ValueError:
        pass
    if "," in raw:
        return [part.strip() for part in raw.split(",") if part.strip()]
    return raw


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
    created = client.create_game(args.ruleset, options, scenario=args.scenario, public=args.public)
    game_id = created["game_id"]

    def human(body: dict) -> None:
        print(f"game {game_id} ({args.ruleset}, {'public' if args.public else 'private'})")
        print(f"seats: {', '.join(body.get('seats') or [])}")
        for seat, code in (body.get("invites") or {}).items():
            print(f"invite for {seat}: {code}")
        print(f"admin token: {body.get('admin_token')}")
        print(f"version {body.get('version')}, chain head {body.get('chain_head')}")
        print(f"each player joins with: warlog join {game_id} INVITE --handle NAME")

    _emit(args, created, human)
    path = _save_or_warn(session, game_id, server=client.base_url, ruleset=args.ruleset,
                         admin_token=created.get("admin_token"), invites=created.get("invites") or {})
    if path and not args.json:
        print(f"saved the invite codes and the admin token to {path}")
    return EXIT_OK if path else EXIT_USAGE


def _save_or_warn(session: Session, game_id: str, **fields) -> str | None:
    try:
        return session.remember(game_id, **fields)
    except OSError as exc:
        print(f"warlog {session.args.command}: could not save to {session.path}: {exc}; "
              "keep the codes and tokens printed above", file=sys.stderr)
        return None


def cmd_join(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    client = session.client(game_id, need=None)
    notify = None if args.notify is None else args.notify
    joined = client.join(game_id, args.invite, args.handle, email=args.email, notify=notify,
                         client_seed=args.client_seed)
    seat, token = joined["seat"], joined["token"]

    def human(body: dict) -> None:
        print(f"joined game {body['game_id']} as {seat} ({args.handle})")
        print(f"version {body.get('version')}, chain head {body.get('chain_head')}")

    _emit(args, joined, human)
    invites = session.entry(game_id).get("invites") or {}
    if invites.get(seat) == args.invite:
        del invites[seat]  # used: an invite code admits one player once
    path = _save_or_warn(session, joined["game_id"], server=client.base_url, seat=seat, token=token,
                         handle=args.handle, seats={seat: token})
    if path and not args.json:
        print(f"saved the {seat} token to {path}")
    return EXIT_OK if path else EXIT_USAGE


def cmd_games(args: argparse.Namespace) -> int:
    session = Session(args)
    client = session.client(None, need=None)
    if getattr(args, "token", None) or os.environ.get("WARLOG_TOKEN"):
        client = client.with_token(session.token(None, "read"))
    body = client.list_games(status=args.status, ruleset=args.ruleset, player=args.player, turn_of=args.turn_of)

    def human(body: dict) -> None:
        games = body.get("games") or []
        if not games:
            print("no games")
        for g in games:
            print(_summary_line(g))

    return _emit(args, body, human)


def _summary_line(g: dict) -> str:
    seats = ", ".join(f"{s['seat']}={s.get('handle') or '(open)'}" for s in g.get("seats") or [])
    moving = ", ".join(g.get("whose_move") or []) or "nobody"
    return (f"{g.get('game_id')} {g.get('ruleset')} {g.get('status')}: turn {g.get('turn')}, "
            f"{g.get('phase')} phase, to move: {moving}; seats {seats}; version {g.get('version')}")


def cmd_show(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    body = session.client(game_id, "read").game(game_id)

    def human(g: dict) -> None:
        print(_summary_line(g))
        if g.get("vp"):
            print("VP: " + ", ".join(f"{k} {v}" for k, v in g["vp"].items()))
        if g.get("ended"):
            print("ended: " + _ended_text(g["ended"]))
        print(f"chain head {g.get('chain_head')}")

    return _emit(args, body, human)


def _ended_text(ended: dict) -> str:
    who = f"{ended['winner']} wins" if ended.get("winner") else "a draw"
    extra = ", ".join(str(ended[k]) for k in ("level", "reason") if ended.get(k))
    return who + (f" ({extra})" if extra else "")


def cmd_legal(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    body = session.client(game_id, "seat").legal_orders(game_id)

    def human(b: dict) -> None:
        orders = b.get("orders") or []
        if not orders:
            print(f"{b.get('seat', 'this seat')} has no legal order now")
        for o in orders:
            fields = "; ".join(f"{k}: {v if isinstance(v, str) else _compact(v)}"
                               for k, v in (o.get("fields") or {}).items())
            rule = f" ({o['rule']})" if o.get("rule") else ""
            print(f"{o.get('kind')}{rule}" + (f" — {fields}" if fields else ""))

    return _emit(args, body, human)


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

    def take(n: int, usage: str) -> list[str]:
        if len(words) != n:
            raise UsageError(f"usage: warlog order GAME {usage}")
        return words

    if kind == "roll":
        (order["dice"],) = take(1, "roll DICE --purpose TEXT [--target '>=8' --modifier '+1 elite'] "
                                   "[--rule R] [--unit U] [--replaces SEQ]")
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
    elif kind == "note":
        text = " ".join(words) if words else args.text
        if not text:
            raise UsageError("usage: warlog order GAME note TEXT")
        order["text"] = text
    elif kind == "vp":
        side, delta = take(2, "vp SIDE DELTA --reason TEXT")
        try:
            order.update(side=side, delta=int(delta))
        except ValueError:
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
                           or args.replaces is not None):
        raise UsageError("--purpose, --target, --modifier, --unit and --replaces go with a roll "
                         "(--set KEY=VALUE gives any field to any order)")
    order.update(_pairs(args.set, "--set", split_commas=False))
    return order


def cmd_order(args: argparse.Namespace) -> int:
    from api.client import ConnectionFailed

    session = Session(args)
    game_id = session.game_id(args.game_id)
    args.json = args.order_json is not None or args.json_out
    order = build_order(args)
    order_id = args.order_id or str(uuid.uuid4())
    client = session.client(game_id, "seat")
    try:
        result = client.submit_order(game_id, order, order_id=order_id, if_match=args.if_match)
    except ConnectionFailed as exc:
        raise ConnectionFailed(f"{exc}; the order may or may not be recorded: send it again with "
                               f"--order-id {order_id}, which records it at most once") from None
    return _emit(args, result, lambda r: _print_result(r, f"order {order_id} recorded:"))


def cmd_take_back(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    result = session.client(game_id, "seat").request_take_back(game_id, args.reason or "")
    return _emit(args, result, lambda r: _print_result(r, "take-back requested; the opponent answers "
                                                         "with 'warlog answer-take-back'"))


def cmd_answer_take_back(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    result = session.client(game_id, "seat").answer_take_back(game_id, args.accept)
    return _emit(args, result, lambda r: _print_result(r, "take-back " + ("accepted" if args.accept else "declined")))


def cmd_concede(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    result = session.client(game_id, "seat").concede(game_id)
    return _emit(args, result, lambda r: _print_result(r, "conceded"))


def cmd_client_seed(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    result = session.client(game_id, "seat").set_client_seed(game_id, args.client_seed)
    return _emit(args, result, lambda r: _print_result(r, "client seed changed (from the next dice epoch)"))


def cmd_umpire_token(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    body = session.client(game_id, "admin").umpire_token(game_id)
    _emit(args, body, lambda b: print(f"umpire token for game {b.get('game_id')}: {b.get('token')}"))
    path = _save_or_warn(session, game_id, umpire_token=body.get("token"))
    if path and not args.json:
        print(f"saved it to {path}")
    return EXIT_OK if path else EXIT_USAGE


def cmd_state(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    if args.at is not None and (args.turn is not None or args.phase):
        raise UsageError("give either --at SEQ, or --turn (and --phase), not both")
    body = session.client(game_id, "read").state(game_id, at=args.at, turn=args.turn, phase=args.phase)

    def human(b: dict) -> None:
        state = b.get("state") or {}
        at = f" (right after event #{args.at})" if args.at is not None else ""
        if args.turn is not None:
            at = f" (the start of turn {args.turn}{', ' + args.phase + ' phase' if args.phase else ''})"
        print(f"game {b.get('game_id', game_id)} at version {b.get('version')}{at}")
        print(f"turn {b.get('turn', state.get('turn'))}, {b.get('phase', state.get('phase'))} phase; "
              f"to move: {', '.join(b.get('whose_move') or []) or 'nobody'}")
        if state.get("vp"):
            print("VP: " + ", ".join(f"{k} {v}" for k, v in state["vp"].items()))
        ended = b.get("ended") or state.get("ended")
        if ended:
            print("ended: " + (_ended_text(ended) if isinstance(ended, dict) else str(ended)))
        shown = {"turn", "phase", "vp", "ended"}
        for key, value in state.items():
            if key not in shown and value not in (None, [], {}, ""):
                print(f"{key}: {value if isinstance(value, str) else _compact(value)}")

    return _emit(args, body, human)


def cmd_history(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    body = session.client(game_id, "read").history(game_id)

    def human(b: dict) -> None:
        for turn in b.get("turns") or []:
            print(f"Turn {turn.get('turn')}")
            for phase in turn.get("phases") or []:
                print(f"  {phase.get('phase')}")
                for op in phase.get("operations") or []:
                    who = op.get("seat") or "the game"
                    order = f" (order {op['order_id']})" if op.get("order_id") else ""
                    print(f"    {who}{order}")
                    for line in op.get("lines") or []:
                        print("      " + _event_line(line))

    return _emit(args, body, human)


def cmd_dice(args: argparse.Namespace) -> int:
    session = Session(args)
    game_id = session.game_id(args.game_id)
    body = session.client(game_id, "read").dice(game_id, seat=args.seat, turn=args.turn, purpose=args.purpose)

    def human(b: dict) -> None:
        rolls = b.get("rolls") or []
        if not rolls:
            print("no dice rolled" + (" that match" if (args.seat or args.turn or args.purpose) else ""))
        for r in rolls:
            print(_roll_line(r))

    return _emit(args, body, human)


def _roll_line(r: dict) -> str:
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
                print(json.dumps(event.data, ensure_ascii=False) if isinstance(event.data, dict) else event.raw,
                      flush=True)
            else:
                print(f"#{event.id} {event.text}", flush=True)
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
    lines = session.client(game_id, "read").export(game_id)
    count = 0
    first = next(lines, None)  # a problem (no such game) is raised before the file is created
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    try:
        if first is not None:
            out.write(first + "\n")
            count = 1
        for line in lines:
            out.write(line + "\n")
            count += 1
    finally:
        if args.output:
            out.close()
    if args.output:
        print(f"exported {count} events of game {game_id} from {session.server(game_id)} to {args.output}",
              file=sys.stderr)
    return EXIT_OK


def _add_access(p: argparse.ArgumentParser, *, seat_choice: bool = True, json_flag: bool = True) -> None:
    g = p.add_argument_group("server and token (else WARLOG_SERVER / WARLOG_TOKEN, else the config file)")
    g.add_argument("--server", metavar="URL", help="the warlog server, e.g. http://127.0.0.1:8000")
    g.add_argument("--token", metavar="TOKEN", help="a bearer token (seat, umpire or admin)")
    if seat_choice:
        g.add_argument("--as", dest="as_seat", metavar="SEAT",
                       help="use the saved token of this seat (several seats of one game on one machine)")
    g.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS", help="per request (default 30)")
    if json_flag:
        p.add_argument("--json", action="store_true", help="print the raw JSON response (for scripts)")
    p.set_defaults(client=True)


CLIENT_EPILOG = f"""\
Client commands (new, join, games, show, legal, order, state, history, dice, watch, take-back,
answer-take-back, concede, client-seed, umpire-token, and export with a server) talk to a warlog
server: --server or WARLOG_SERVER, else the server saved with the game or in the config file.
The token is --token or WARLOG_TOKEN, else the one saved by 'new'/'join' in the config file
(WARLOG_CLIENT_CONFIG, default {DEFAULT_CONFIG}, written with mode 0600).

export: with --server or WARLOG_SERVER it downloads the game from that server; otherwise (or with
--local) it reads this machine's store, as the other server-side commands do.

Exit status: 0 done, 1 the server refused (the message names the rule), 2 usage or connection
error."""


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
    _add_access(p, seat_choice=False)
    p.set_defaults(func=cmd_new)

    p = sub.add_parser("join", help="take a seat with an invite code; saves the seat's token")
    p.add_argument("game_id")
    p.add_argument("invite", help="the invite code (wli_…)")
    p.add_argument("--handle", required=True, help="your name in the game")
    p.add_argument("--email", help="for turn notifications; never shown to others")
    p.add_argument("--no-notify", dest="notify", action="store_false", default=None,
                   help="no e-mail notifications")
    p.add_argument("--client-seed", help="text mixed into the dice of every later epoch")
    _add_access(p, seat_choice=False)
    p.set_defaults(func=cmd_join)

    p = sub.add_parser("games", help="list public games and the game of your token")
    p.add_argument("--status", choices=["waiting", "active", "ended"])
    p.add_argument("--ruleset")
    p.add_argument("--player", help="a player's handle")
    p.add_argument("--turn-of", help="games where it is this handle's move")
    _add_access(p, seat_choice=False)
    p.set_defaults(func=cmd_games)

    p = sub.add_parser("show", help="a game's summary: status, seats, whose move, VP, chain head")
    p.add_argument("game_id")
    _add_access(p)
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("legal", help="the orders your seat may give now")
    p.add_argument("game_id")
    _add_access(p)
    p.set_defaults(func=cmd_legal)

    p = sub.add_parser(
        "order", help="give an order, e.g. 'order GAME roll 2d6 --purpose fire'",
        description="Give an order. KIND and its words build it: roll DICE, note TEXT, vp SIDE DELTA, "
                    "advance, end [WINNER|draw]; any other kind takes its fields as --set KEY=VALUE. "
                    "Or give the whole order as --json '{\"kind\": ...}'. The order id (Idempotency-Key) "
                    "is a fresh uuid4 unless --order-id is given: the same id again records nothing new.")
    p.add_argument("game_id")
    p.add_argument("kind", nargs="?", help="roll, note, vp, advance, end, or a ruleset's own kind")
    p.add_argument("words", nargs="*", help="the kind's arguments (see above)")
    p.add_argument("--purpose", help="what a roll is for")
    p.add_argument("--target", metavar="CMP", help="a roll's target, e.g. '>=8'")
    p.add_argument("--modifier", action="append", metavar="'+1 REASON'", help="a target modifier (repeatable)")
    p.add_argument("--rule", help="the rule number the order applies, e.g. 8.2")
    p.add_argument("--unit", action="append", help="a unit the roll is for (repeatable)")
    p.add_argument("--replaces", type=int, metavar="SEQ", help="re-roll: the seq of the roll it replaces")
    p.add_argument("--text", help="a note's text")
    p.add_argument("--reason", help="why (vp, end)")
    p.add_argument("--winner", help="end: the winning side (or 'draw')")
    p.add_argument("--level", help="end: the level of victory")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="any order field; VALUE is read as JSON when it parses (repeatable)")
    p.add_argument("--order-id", help="the order's id (Idempotency-Key); default a fresh uuid4")
    p.add_argument("--if-match", type=int, metavar="VERSION",
                   help="record only if the game is still at this version")
    _add_access(p, json_flag=False)
    p.add_argument("--json", dest="order_json", nargs="?", const=None, default=None, metavar="ORDER",
                   action=_JsonOption,
                   help="print the raw JSON response; with ORDER (a JSON object), send that order")
    p.set_defaults(func=cmd_order, json_out=False)

    p = sub.add_parser("state", help="the game's state now, or as it was (--at SEQ, --turn N [--phase P])")
    p.add_argument("game_id")
    p.add_argument("--at", type=int, metavar="SEQ", help="the state right after event SEQ")
    p.add_argument("--turn", type=int, help="the state at the start of this turn")
    p.add_argument("--phase", help="with --turn: the start of this phase")
    _add_access(p)
    p.set_defaults(func=cmd_state)

    p = sub.add_parser("history", help="the game turn by turn, phase by phase, order by order")
    p.add_argument("game_id")
    _add_access(p)
    p.set_defaults(func=cmd_history)

    p = sub.add_parser("dice", help="every roll with its purpose and outcome")
    p.add_argument("game_id")
    p.add_argument("--seat")
    p.add_argument("--turn", type=int)
    p.add_argument("--purpose", help="rolls whose purpose contains this text")
    _add_access(p)
    p.set_defaults(func=cmd_dice)

    p = sub.add_parser("watch", help="follow the game live, one line per event, until it ends (Ctrl-C stops)")
    p.add_argument("game_id")
    p.add_argument("--from", dest="from_seq", type=int, metavar="SEQ", help="start after this event")
    p.add_argument("--new", action="store_true", help="only events recorded from now on")
    p.add_argument("--count", type=int, metavar="N", help="stop after N events")
    _add_access(p)
    p.set_defaults(func=cmd_watch)

    p = sub.add_parser("take-back", help="ask to take back your last order")
    p.add_argument("game_id")
    p.add_argument("--reason", default="")
    _add_access(p)
    p.set_defaults(func=cmd_take_back)

    p = sub.add_parser("answer-take-back", help="accept or decline the opponent's take-back request")
    p.add_argument("game_id")
    choice = p.add_mutually_exclusive_group(required=True)
    choice.add_argument("--accept", dest="accept", action="store_true")
    choice.add_argument("--decline", dest="accept", action="store_false")
    _add_access(p)
    p.set_defaults(func=cmd_answer_take_back)

    p = sub.add_parser("concede", help="concede the game")
    p.add_argument("game_id")
    _add_access(p)
    p.set_defaults(func=cmd_concede)

    p = sub.add_parser("client-seed", help="change your client seed (mixed into the dice from the next epoch)")
    p.add_argument("game_id")
    p.add_argument("client_seed")
    _add_access(p)
    p.set_defaults(func=cmd_client_seed)

    p = sub.add_parser("umpire-token", help="issue an umpire token (needs the admin token); saves it")
    p.add_argument("game_id")
    _add_access(p, seat_choice=False)
    p.set_defaults(func=cmd_umpire_token)


class _JsonOption(argparse.Action):
    """``--json`` alone: JSON output; ``--json ORDER``: JSON output and this order."""

    def __call__(self, parser, namespace, values, option_string=None):
        namespace.json_out = True
        if values is not None:
            namespace.order_json = values


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="warlog", description="Warlog: verifiable PBEM game logs.",
                                     epilog=CLIENT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("serve", help="create the schema and serve the web app with gunicorn")
    p.add_argument("--host", default=os.environ.get("WARLOG_HOST", "127.0.0.1"))
    p.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    p.add_argument("--workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY", "2")))
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("migrate", help="create the event store and seed tables (once, before workers start)")
    p.set_defaults(func=cmd_migrate)

    p = sub.add_parser("export", help="write a game as JSON Lines (docs/dice.md), from a server or the local store",
                       description="Write a game as JSON Lines (docs/dice.md). With --server URL or "
                                   "WARLOG_SERVER set, the game is downloaded from that server (with the "
                                   "token of --token, WARLOG_TOKEN or the config file, when there is one); "
                                   "otherwise, or with --local, it is read from this machine's store "
                                   "(WARLOG_DATA_DIR / WARLOG_DATABASE_URL). A server saved in the client "
                                   "config file alone does not switch export to the server.")
    p.add_argument("game_id")
    p.add_argument("-o", "--output", help="file to write (default: standard output)")
    p.add_argument("--local", action="store_true", help="read the local store even when WARLOG_SERVER is set")
    _add_access(p, json_flag=False)
    p.set_defaults(func=cmd_export, client=False)

    p = sub.add_parser("import", help="store an exported game; refuses a file that does not verify")
    p.add_argument("file")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("verify", help="check an export offline: the hash chain and every revealed die")
    p.add_argument("file")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("check", help="verify a stored game's log in place, as an export would be")
    p.add_argument("game_id")
    p.add_argument("--accept-damage", metavar="REASON",
                   help="record the operator's decision to play on from the damaged stored log as it is")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("projector", help="keep the read models current (a Procfile process); SIGTERM stops it")
    p.set_defaults(func=cmd_projector)

    p = sub.add_parser("worker", help="run an rq worker for the warlog queues (and the notification dispatcher)")
    p.add_argument("--queues", nargs="+", metavar="NAME", help="queues to serve (default: WARLOG_QUEUE and "
                                                               "WARLOG_NOTIFY_QUEUE, both 'warlog' unless set)")
    p.add_argument("--burst", action="store_true", help="quit when the queues are empty")
    p.add_argument("--no-dispatch", action="store_true", help="do not run the notification dispatcher here")
    p.set_defaults(func=cmd_worker)

    p = sub.add_parser("rebuild-projections", help="drop the read models and fold them again from the log")
    p.add_argument("--game", metavar="ID", help="rebuild this game only")
    p.set_defaults(func=cmd_rebuild_projections)

    add_client_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from api.client import ClientError, ProblemError
    from domain.errors import WarlogError

    args = build_parser().parse_args(argv)
    _warned.clear()
    try:
        return args.func(args)
    except ProblemError as exc:
        if getattr(args, "json", False) and exc.body:
            _print_json(exc.body)
        print(f"warlog {args.command}: {_problem_text(exc)}", file=sys.stderr)
        return EXIT_FAILED
    except (ClientError, UsageError) as exc:
        print(f"warlog {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        if not getattr(args, "client", False):
            raise
        return 130
    except WarlogError as exc:
        print(f"warlog {args.command}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except OSError as exc:
        print(f"warlog {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _problem_text(exc) -> str:
    """``<detail> [<rule>]``, without the rule twice when the detail starts with it."""
    detail = exc.detail
    if exc.rule and detail.startswith(f"{exc.rule}: "):
        detail = detail[len(exc.rule) + 2:]
    errors = exc.body.get("errors") if isinstance(exc.body, dict) else None
    if isinstance(errors, dict) and errors:
        detail += " (" + "; ".join(f"{field}: {' '.join(map(str, msgs)) if isinstance(msgs, list) else msgs}"
                                   for field, msgs in errors.items()) + ")"
    return f"{detail} [{exc.rule}]" if exc.rule else detail


if __name__ == "__main__":
    raise SystemExit(main())
