"""The ``warlog`` command: serve, migrate, and the offline tools export / import / verify / check."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _service():
    from domain.service import Warlog

    return Warlog()


def cmd_migrate(args: argparse.Namespace) -> int:
    from api.app import migrate

    config = migrate()
    print(f"schema ready on {config.describe()}")
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    """Create the schema once, then hand over to gunicorn (never the Flask dev server)."""
    cmd_migrate(args)
    print(f"warlog listening on http://{args.host}:{args.port}/ (health: /healthz)", flush=True)
    conf = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gunicorn_conf.py")
    argv = ["gunicorn", "-c", conf, "--workers", str(args.workers), "--bind", f"{args.host}:{args.port}",
            "--access-logfile", "-", "api.app:create_app()"]
    os.execvp(sys.executable, [sys.executable, "-m", *argv])
    return EXIT_OK  # not reached


def cmd_export(args: argparse.Namespace) -> int:
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
    report = _service().check_integrity(args.game_id)
    print(report.summary())
    return EXIT_OK if report.ok else EXIT_FAILED


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="warlog", description="Warlog: verifiable PBEM game logs.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("serve", help="create the schema and serve the web app with gunicorn")
    p.add_argument("--host", default=os.environ.get("WARLOG_HOST", "127.0.0.1"))
    p.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    p.add_argument("--workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY", "2")))
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("migrate", help="create the event store and seed tables (once, before workers start)")
    p.set_defaults(func=cmd_migrate)

    p = sub.add_parser("export", help="write a game as JSON Lines (docs/dice.md)")
    p.add_argument("game_id")
    p.add_argument("-o", "--output", help="file to write (default: standard output)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("import", help="store an exported game; refuses a file that does not verify")
    p.add_argument("file")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("verify", help="check an export offline: the hash chain and every revealed die")
    p.add_argument("file")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("check", help="verify a stored game's log in place, as an export would be")
    p.add_argument("game_id")
    p.set_defaults(func=cmd_check)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from domain.errors import WarlogError

    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except WarlogError as exc:
        print(f"warlog {args.command}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except OSError as exc:
        print(f"warlog {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    raise SystemExit(main())
