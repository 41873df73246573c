"""``python -m bench [NAME ...] [--store sqlite|postgres|all] [--quick] [--out FILE] [--profile DIR]``

Runs the named benchmarks (all by default) and prints their figures. A full run of every
benchmark writes docs/benchmarks.md; a partial or ``--quick`` run writes only with ``--out``.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

from bench import machine
from bench.report import print_result, render
from bench.stores import KINDS

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "benchmarks.md"


def _method(module) -> str:
    """A module's docstring past its title line: how the benchmark measures."""
    return "\n\n".join(module.__doc__.split("\n\n")[1:])


def _orders(args):
    from bench import orders
    return orders.run(args.stores, args.quick, args.profile, args.ruleset, args.before), _method(orders)


def _peers(args):
    from bench import peers
    return peers.run(args.stores, args.quick), _method(peers)


def _openloop(args):
    from bench import openloop
    return openloop.run(args.stores, args.quick), _method(openloop)


def _cpu(args):
    from bench import cpu
    return cpu.run(args.stores, args.quick, args.profile), _method(cpu)


def _projection(args):
    from bench import projection
    return projection.run(args.stores, args.quick), _method(projection)


def _timetravel(args):
    from bench import timetravel
    return timetravel.run(args.quick), _method(timetravel)


def _replay(args):
    from bench import artifacts
    return artifacts.run(args.quick, args.ruleset), _method(artifacts)


def _dice(args):
    from bench import dice
    return dice.run(args.quick), _method(dice)


def _memory(args):
    from bench import memory
    return memory.run(args.quick), _method(memory)


BENCHES = {"peers": _peers, "openloop": _openloop, "cpu": _cpu, "orders": _orders, "projection": _projection, "timetravel": _timetravel, "replay": _replay,
           "dice": _dice, "memory": _memory}

INTRO = [
    "Made by `python -m bench` (`make bench`): the current figures and how each is measured; the",
    "history of earlier figures is in git. bench/ holds the code and each benchmark runs alone,",
    "e.g. `python -m bench peers --store sqlite` (`--quick`: a short run that proves the code works;",
    "tests/bench runs that). The figures that count (issue 30) are ratios to a real peer measured in",
    "the same run on the same machine: boardgame.io 0.50.2, installed by npm into bench/peers/bgio/",
    "on first use (skipped with a reason where Node.js or npm is missing). PostgreSQL runs use",
    "`WARLOG_BENCH_POSTGRES_URL` (default the test database), in a schema (the peer: a database)",
    "made for the run and dropped after it; SQLite runs a file in a temporary folder. This machine is",
    "shared: the load averages below say how quiet it was. Three tools beside them:",
    "`python -m bench.longgame` (the projector on one long game), `python -m bench.instructions`",
    "(instructions an order, counted by valgrind on a replayed script of orders) and",
    "`python -m bench.inprocess` (an order's CPU with no web server, which section 3 also reports;",
    "`--falklands`: Falklands orders' latency with no web server, which section 2 also reports).",
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[1])
    parser.add_argument("names", nargs="*", choices=[*BENCHES, []], metavar="NAME",
                        help=f"benchmarks to run: {', '.join(BENCHES)} (default: all)")
    parser.add_argument("--store", choices=[*KINDS, "all"], default="all", help="store(s) for every benchmark that runs on one (default: both)")
    parser.add_argument("--ruleset", action="append", help="order source(s) for orders and replay (default: all)")
    parser.add_argument("--quick", action="store_true", help="small sizes: proves the code, measures little")
    parser.add_argument("--out", type=Path, help=f"write the Markdown report here (a full run writes {DOC.relative_to(ROOT)})")
    parser.add_argument("--profile", type=Path, help="orders, cpu: keep the web workers' py-spy stacks in this folder")
    parser.add_argument("--before", metavar="REV",
                        help="orders: also measure every order source against this commit's server (this client)")
    parser.add_argument("--note", action="append", default=[], help="a line for the report (e.g. other load on the machine)")
    args = parser.parse_args(argv)
    args.stores = list(KINDS) if args.store == "all" else [args.store]
    names = args.names or list(BENCHES)
    out = args.out or (DOC if not args.names and not args.quick and args.store == "all" and not args.ruleset else None)

    described = machine.describe()
    results = []
    started = time.monotonic()
    for name in names:
        print(f"== {name}{' (quick)' if args.quick else ''}", flush=True)
        t = time.monotonic()
        result, result.method = BENCHES[name](args)
        result.notes.append(f"this benchmark took {time.monotonic() - t:.0f} s")
        print_result(result)
        results.append(result)
    described["load average at end"] = machine.load()
    described["whole run"] = f"{time.monotonic() - started:.0f} s{' (quick mode)' if args.quick else ''}"
    if out is not None:
        command = shlex.join(["python", "-m", "bench", *(argv if argv is not None else sys.argv[1:])])
        intro = INTRO + ["", f"This page was written by `{command}`."]
        intro += ([""] + [f"**Note:** {n}" for n in args.note]) if args.note else []
        out.write_text(render(results, described, intro), encoding="utf-8")
        print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
