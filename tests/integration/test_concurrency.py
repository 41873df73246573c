"""Several OS processes writing to ONE game at once, on SQLite and on PostgreSQL.

Each process ("spawn": nothing inherited but its arguments) builds its own ``Warlog(config)``,
waits at a barrier so all start together, and reports back through a queue. Every test is
bounded in time: a hung or crashed process fails the test, never the run.
"""

from __future__ import annotations

import json
import multiprocessing
import pickle
import queue as queue_module
import time
import traceback

import pytest
from eventsourcing.persistence import IntegrityError

from domain.errors import Conflict
from domain.service import Warlog
from tests.conftest import new_freeform_game

PROCESSES = 4
ORDERS_EACH = 15
ROUNDS = 4
DEADLINE = 60  # seconds for one whole test's processes, start-up included
SEATS = ("Blue", "Red")


def roll(purpose: str) -> dict:
    return {"kind": "roll", "dice": "2d6", "purpose": purpose}


# -------------------------------------------------------------- the processes (module level) --
def _report(config, barrier, results, worker: int, body) -> None:
    """Run ``body(app)`` and put its outcome, or the error that stopped it, on the queue.

    ``collisions`` counts the saves the store itself refused (two writers of one version), as
    opposed to a Conflict found before writing: proof that the race reached the database."""
    app = None
    collisions = 0
    try:
        app = Warlog(config)
        save = app.save

        def counting_save(*args, **kwargs):
            nonlocal collisions
            try:
                return save(*args, **kwargs)
            except IntegrityError:
                collisions += 1
                raise

        app.save = counting_save
        outcome = body(app)
        results.put({"worker": worker, "ok": True, "collisions": collisions, **outcome})
    except BaseException:  # anything at all goes back to the test, which fails on it
        barrier.abort()  # the others stop waiting for this one at once
        results.put({"worker": worker, "ok": False, "error": traceback.format_exc()})
    finally:
        if app is not None:
            app.close()


def submit_until_recorded(config, game_id, worker, barrier, results):
    """Submit ORDERS_EACH rolls with distinct ids, retrying each on Conflict until recorded."""
    seat = SEATS[worker % len(SEATS)]

    def body(app):
        conflicts, recorded = 0, []
        barrier.wait()
        for n in range(ORDERS_EACH):
            order_id = f"w{worker}-o{n}"
            for _attempt in range(500):
                try:
                    result = app.submit_order(game_id, seat, order_id, roll(order_id))
                    break
                except Conflict:
                    conflicts += 1
            else:
                raise AssertionError(f"{order_id} was never recorded in 500 attempts")
            recorded.append({"order_id": order_id, "events": result.events,
                             "replayed": result.replayed, "version": result.version})
        return {"conflicts": conflicts, "recorded": recorded}

    _report(config, barrier, results, worker, body)


def submit_at_the_version_read(config, game_id, worker, barrier, results):
    """Each round: read the version, wait for all, submit expected_version=that version once."""
    seat = SEATS[worker % len(SEATS)]

    def body(app):
        outcomes = []
        for rnd in range(ROUNDS):
            seen = app.get_game(game_id).version
            barrier.wait()
            order_id = f"r{rnd}-w{worker}"
            try:
                result = app.submit_order(game_id, seat, order_id, roll(order_id), expected_version=seen)
                outcomes.append({"round": rnd, "seen": seen, "recorded": True, "order_id": order_id,
                                 "events": result.events, "version": result.version})
            except Conflict as exc:
                outcomes.append({"round": rnd, "seen": seen, "recorded": False, "order_id": order_id,
                                 "current_version": exc.current_version})
            barrier.wait()  # everyone done before anyone reads the next round's version
        return {"outcomes": outcomes}

    _report(config, barrier, results, worker, body)


def submit_the_same_order(config, game_id, worker, barrier, results):
    """Each round: every process submits the same order id and body at once."""

    def body(app):
        outcomes = []
        for rnd in range(ROUNDS):
            barrier.wait()
            result = app.submit_order(game_id, "Blue", f"same-{rnd}", roll(f"same-{rnd}"))
            outcomes.append({"round": rnd, "events": result.events, "replayed": result.replayed,
                             "version": result.version, "chain_head": result.chain_head})
            barrier.wait()
        return {"outcomes": outcomes}

    _report(config, barrier, results, worker, body)


# ----------------------------------------------------------------------------- the harness --
def run_processes(target, config, *args) -> list[dict]:
    """Start PROCESSES spawned processes on ``target(config, *args, worker, barrier, results)``
    (``args``: a game id, say); their reports, by worker. Fails the test if any process errs, hangs
    or dies, or if all of them take longer than DEADLINE."""
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(PROCESSES, timeout=DEADLINE / 2)
    results = ctx.Queue()
    procs = [ctx.Process(target=target, args=(config, *args, w, barrier, results), daemon=True)
             for w in range(PROCESSES)]
    deadline = time.monotonic() + DEADLINE
    reports: list[dict] = []
    try:
        for p in procs:
            p.start()
        while len(reports) < PROCESSES:
            try:
                reports.append(results.get(timeout=max(0.1, min(1.0, deadline - time.monotonic()))))
            except queue_module.Empty:
                if time.monotonic() > deadline:
                    pytest.fail(f"hung: only {len(reports)} of {PROCESSES} processes reported "
                                f"within {DEADLINE}s")
                dead = [p for p in procs if p.exitcode not in (None, 0)]
                if dead:
                    pytest.fail(f"a process died without reporting (exit codes "
                                f"{[p.exitcode for p in procs]})")
        for p in procs:
            p.join(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        for p in procs:
            if p.is_alive():
                p.terminate()
                p.join(timeout=5)
        results.close()
    errors = [r["error"] for r in reports if not r["ok"]]
    assert not errors, "\n\n".join(errors)
    return sorted(reports, key=lambda r: r["worker"])


def export_lines(config, game_id) -> list[dict]:
    app = Warlog(config)
    try:
        return [json.loads(t) for t in app.export(game_id)]
    finally:
        app.close()


def assert_log_sound(app: Warlog, game_id: str) -> list[dict]:
    """Gapless versions 1..N, the chain and dice verify; returns the export lines."""
    lines = [json.loads(t) for t in app.export(game_id)]
    assert [line["seq"] for line in lines] == list(range(1, len(lines) + 1))
    report = app.check_integrity(game_id)
    assert report.ok, report.summary()
    assert report.events == len(lines) == app.get_game(game_id).version
    return lines


def order_ids_recorded(lines: list[dict]) -> list[str]:
    return [line["data"]["order_id"] for line in lines if line["type"] == "OrderAccepted"]


# ------------------------------------------------------------------------------------ tests --
def test_store_config_survives_pickling_for_spawned_processes(store_config):
    assert pickle.loads(pickle.dumps(store_config)) == store_config


def test_racing_processes_record_every_order_exactly_once_in_a_gapless_chain(app, store_config):
    game_id = new_freeform_game(app)
    start = app.get_game(game_id).version

    reports = run_processes(submit_until_recorded, store_config, game_id)

    lines = assert_log_sound(app, game_id)
    wanted = sorted(f"w{w}-o{n}" for w in range(PROCESSES) for n in range(ORDERS_EACH))
    assert sorted(order_ids_recorded(lines)) == wanted  # each exactly once, none lost
    assert len(lines) == start + 2 * len(wanted)  # OrderAccepted + DiceRolled, nothing else
    # what each winner was told is what the store holds
    by_seq = {line["seq"]: line for line in lines}
    for report in reports:
        for rec in report["recorded"]:
            assert not rec["replayed"]
            assert [by_seq[e["seq"]] for e in rec["events"]] == rec["events"], rec["order_id"]
    conflicts = sum(r["conflicts"] for r in reports)
    assert conflicts > 0, "no conflict happened: the processes did not actually race"
    assert sum(r["collisions"] for r in reports) > 0, "no save was refused by the store itself"


def test_racing_on_the_same_expected_version_records_exactly_one(app, store_config):
    game_id = new_freeform_game(app)

    reports = run_processes(submit_at_the_version_read, store_config, game_id)

    lines = assert_log_sound(app, game_id)
    recorded_ids = order_ids_recorded(lines)
    for rnd in range(ROUNDS):
        outcomes = [o for r in reports for o in r["outcomes"] if o["round"] == rnd]
        assert len({o["seen"] for o in outcomes}) == 1, "the processes read different versions"
        winners = [o for o in outcomes if o["recorded"]]
        assert len(winners) == 1, f"round {rnd}: {len(winners)} recorded"
        winner = winners[0]
        assert winner["events"][0]["seq"] == outcomes[0]["seen"] + 1
        for loser in (o for o in outcomes if not o["recorded"]):
            assert loser["order_id"] not in recorded_ids
            assert loser["current_version"] is None or loser["current_version"] > loser["seen"]
    assert len(recorded_ids) == ROUNDS


def test_racing_with_the_same_order_id_and_body_records_it_once_and_all_get_its_result(app, store_config):
    game_id = new_freeform_game(app)

    reports = run_processes(submit_the_same_order, store_config, game_id)

    lines = assert_log_sound(app, game_id)
    assert order_ids_recorded(lines) == [f"same-{rnd}" for rnd in range(ROUNDS)]
    by_seq = {line["seq"]: line for line in lines}
    for rnd in range(ROUNDS):
        outcomes = [o for r in reports for o in r["outcomes"] if o["round"] == rnd]
        assert len(outcomes) == PROCESSES
        assert sorted(o["replayed"] for o in outcomes) == [False] + [True] * (PROCESSES - 1)
        first = outcomes[0]["events"]
        assert [e["type"] for e in first] == ["OrderAccepted", "DiceRolled"]
        assert all(o["events"] == first for o in outcomes), "the processes were told different results"
        assert [by_seq[e["seq"]] for e in first] == first
        assert len({(o["version"], o["chain_head"]) for o in outcomes}) == 1
    assert sum(r["collisions"] for r in reports) > 0, (
        "no two saves of the same order ever met in the store: the race was not exercised")
