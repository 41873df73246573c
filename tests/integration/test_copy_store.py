"""``warlog copy-store``: a store moved from SQLite to PostgreSQL, its games still playable there
(docs/operations.md, "Moving a store to PostgreSQL"); on real SQLite and real PostgreSQL, the
command run as an operator runs it, in a process of its own."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
import time

import pytest

from api.app import migrate
from api.copystore import plain_tables
from domain.service import Warlog
from domain.storage import SQLITE_FILE, config_from_env
from domain.verify import verify_text
from projections.runner import Projections
from tests.api.conftest import app_on, bearer, start_game
from tests.api.test_falklands_game import orders_to_try
from tests.api.test_signatures import keyed_game, signed
from tests.conftest import fresh_schema
from workers.dispatch import Dispatcher, NotifyStore

ROLL = {"kind": "roll", "dice": "2d6", "purpose": "barrage"}


def copy_store(data_dir, url: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "WARLOG_DATA_DIR": str(data_dir), "PYTHONPATH": os.getcwd()}
    env.pop("WARLOG_DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "api.cli", "copy-store", "--to", url], env=env,
                          capture_output=True, text=True, timeout=300)


def play_falklands(client, game_id: str, seats: dict, orders: int) -> int:
    """``orders`` orders of a Falklands game, each the first that legal-orders offers (as the
    whole-game test plays them); the number of them that rolled dice."""
    rolled = 0
    for n in range(orders):
        state = client.get(f"/api/v1/games/{game_id}/state", headers=seats["UK"]).json["state"]
        seat = state["pending"][0]["seat"] if state["pending"] else state["active"][0]
        legal = client.get(f"/api/v1/games/{game_id}/legal-orders", headers=seats[seat]).json["orders"]
        tries = orders_to_try(state, seat, legal)
        for t, order in enumerate(tries):
            r = client.post(f"/api/v1/games/{game_id}/orders", json=order,
                            headers={**seats[seat], "Idempotency-Key": f"{game_id}-{n}-{t}-{time.time()}"})
            assert r.status_code < 500, r.json
            if r.status_code == 201:
                rolled += any(line["type"] == "DiceRolled" for line in r.json["events"])
                break
        else:
            pytest.fail(f"no order of {tries} was accepted")
    return rolled


@pytest.fixture
def source(sqlite_config):
    """A SQLite store as a group leaves it: games of both rulesets with orders, joins, a keyed
    seat, a seat still to join, a webhook, notifications dispatched, the read models projected
    and snapshots taken (every 20 events)."""
    migrate(sqlite_config)
    service = Warlog(sqlite_config)
    client = app_on(service).test_client()
    free, key, head = keyed_game(client)
    for n in range(12):
        r = free.order(client, "Blue", ROLL, f"b{n}", **signed(free, key, f"b{n}", ROLL, head))
        assert r.status_code == 201, r.json
        head = r.json["chain_head"]
        assert free.order(client, "Red", ROLL, f"r{n}").status_code == 201
    assert free.order(client, "Red", {"kind": "advance"}, "adv").status_code == 201  # an epoch revealed
    assert free.order(client, "Red", ROLL, "after-advance").status_code == 201
    waiting = start_game(client, {"ruleset": "freeform", "options": {"sides": ["Blue", "Red"]}}, join=False)
    joined = client.post(f"/api/v1/games/{waiting.game_id}/join",
                         json={"invite_code": waiting.invites["Blue"], "handle": "blue"})
    assert joined.status_code == 201
    fs = start_game(client, {"ruleset": "falklands", "options": {"bids": [24, 27]}})
    assert play_falklands(client, fs.game_id, fs.seats, 12) > 0
    NotifyStore.for_service(service).set_webhook(free.game_id, "https://hooks.example.org/warlog", "whsec_x")
    Dispatcher(service, lambda row: None, email_enabled=False).run_batch()
    Projections(service).catch_up()
    games = {"free": free, "waiting": waiting, "fs": fs}
    service.close()
    return sqlite_config, games, key, head


def dump(path: str) -> list[str]:
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return list(conn.iterdump())


def test_copy_store_moves_every_table_and_the_games_play_on_postgresql(source):
    config, games, key, head = source
    data_dir = os.path.dirname(config.sqlite_path)
    before = dump(config.sqlite_path)
    with fresh_schema() as url:
        done = copy_store(data_dir, url)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "OK" == done.stdout.splitlines()[-1]
        assert "warlog_events: " in done.stderr and "rows copied" in done.stderr  # progress, table by table
        counts = {line.split()[0]: line.split()[1:3] for line in done.stdout.splitlines()[1:]
                  if line.startswith("warlog_")}
        assert set(plain_tables()) <= set(counts), counts
        for table in ("warlog_events", "warlog_snapshots", "warlog_dice_seeds", "warlog_tokens",
                      "warlog_invites", "warlog_projection_views", "warlog_games_index", "warlog_webhooks",
                      "warlog_notify_deliveries"):
            assert counts[table][0] == counts[table][1] != "0", (table, counts[table])
        assert "games checked on the target: 3, 0 failing" in done.stdout
        assert dump(config.sqlite_path) == before, "the source is only read"

        src = Warlog(config)
        target = Warlog(config_from_env({"WARLOG_DATABASE_URL": url}))
        try:
            for game in games.values():
                assert list(target.export(game.game_id)) == list(src.export(game.game_id))
                assert target.get_game(game.game_id).state == src.get_game(game.game_id).state
                assert target.check_integrity(game.game_id).ok
            projections = Projections(target)
            assert projections.position() == Projections(src).position() == src.recorder.max_notification_id()
            assert NotifyStore.for_service(target).position() == NotifyStore.for_service(src).position()
            src.close()
            client = app_on(target).test_client()
            free = games["free"]
            # The seats' old tokens play; the next epoch's seed came along, so a roll is made and,
            # once the turn advances, its die verifies against the revealed seed.
            r = free.order(client, "Blue", ROLL, "b-pg", **signed(free, key, "b-pg", ROLL, head))
            assert r.status_code == 201, r.json
            assert "DiceRolled" in [line["type"] for line in r.json["events"]]
            assert free.order(client, "Red", ROLL, "r-pg").status_code == 201
            r = free.order(client, "Red", {"kind": "advance"}, "adv-pg")
            assert r.status_code == 201 and "DiceEpochRevealed" in [line["type"] for line in r.json["events"]]
            report, _ = verify_text(target.export(free.game_id, header=True))
            assert report.ok, report.summary()
            fs = games["fs"]
            play_falklands(client, fs.game_id, fs.seats, 4)
            # The invite not yet used joins the waiting game, which starts.
            waiting = games["waiting"]
            j = client.post(f"/api/v1/games/{waiting.game_id}/join",
                            json={"invite_code": waiting.invites["Red"], "handle": "red"})
            assert j.status_code == 201, j.json
            assert client.get(f"/api/v1/games/{waiting.game_id}", headers=bearer(j.json["token"])).status_code == 200
            # The projector goes on from where it was on SQLite, to the new head.
            assert projections.catch_up() > 0
            assert projections.position() == target.recorder.max_notification_id()
            view = client.get(f"/api/v1/games/{free.game_id}/state", headers=free.seats["Red"]).json
            assert view["version"] == target.get_game(free.game_id).version
        finally:
            target.close()


def test_copy_store_refuses_a_target_that_is_not_empty(source):
    config, *_ = source
    with fresh_schema() as url:
        assert copy_store(os.path.dirname(config.sqlite_path), url).returncode == 0
        again = copy_store(os.path.dirname(config.sqlite_path), url)
    assert again.returncode == 2, again.stdout + again.stderr
    assert "is not empty" in again.stderr and "DROP SCHEMA" in again.stderr, again.stderr


def test_copy_store_refuses_a_source_not_migrated_to_this_release(source):
    config, *_ = source
    with contextlib.closing(sqlite3.connect(config.sqlite_path)) as conn:  # as an older release left it
        conn.execute("ALTER TABLE warlog_notify_prefs DROP COLUMN webhook_format")
        conn.commit()
    with fresh_schema() as url:
        done = copy_store(os.path.dirname(config.sqlite_path), url)
        untouched = _tables(url)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "not migrated to this release" in done.stderr and "warlog migrate" in done.stderr, done.stderr
    assert untouched == [], "nothing is written to the target"


def test_copy_store_refuses_while_a_process_holds_the_source_open(source):
    config, *_ = source
    holder = subprocess.Popen([sys.executable, "-c", "import sqlite3, sys, time; "
                               "c = sqlite3.connect(sys.argv[1]); c.execute('SELECT 1 FROM stored_events'); "
                               "print('open', flush=True); time.sleep(120)", config.sqlite_path],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        with fresh_schema() as url:
            done = copy_store(os.path.dirname(config.sqlite_path), url)
    finally:
        holder.kill()
        holder.wait()
    assert done.returncode == 2, done.stdout + done.stderr
    assert str(holder.pid) in done.stderr and "stop every warlog process" in done.stderr, done.stderr


def test_copy_store_refuses_a_target_that_is_not_postgresql(source, tmp_path):
    config, *_ = source
    done = copy_store(os.path.dirname(config.sqlite_path), f"sqlite:///{tmp_path}/other.sqlite3")
    assert done.returncode == 2 and "postgresql://" in done.stderr, done.stderr


def test_copy_store_of_a_folder_with_no_store_says_where_it_looked(tmp_path):
    done = copy_store(tmp_path / "nothing", "postgresql://postgres@127.0.0.1:5432/test?schema=never_made")
    assert done.returncode == 2 and SQLITE_FILE in done.stderr, done.stderr


def _tables(url: str) -> list[str]:
    import psycopg

    from domain.storage import postgres_dsn, postgres_env

    pg = postgres_env(url)
    with psycopg.connect(postgres_dsn(pg)) as conn:
        return [row[0] for row in conn.execute("SELECT table_name FROM information_schema.tables "
                                               "WHERE table_schema = %s", (pg["POSTGRES_SCHEMA"],))]


def test_every_table_of_a_migrated_store_is_copied(sqlite_config):
    """A table a later release adds to ``migrate`` and forgets here fails this test: every table
    a fresh SQLite store has is the event store's or one of ``plain_tables``."""
    migrate(sqlite_config)
    with contextlib.closing(sqlite3.connect(sqlite_config.sqlite_path)) as conn:
        made = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert made - {"stored_events", "stored_snapshots"} == set(plain_tables())


def test_copy_store_copies_a_postgresql_schema_into_another(postgres_config, tmp_path):
    """The source may be PostgreSQL too (WARLOG_DATABASE_URL): its notification ids are kept."""
    from tests.conftest import new_freeform_game

    migrate(postgres_config)
    service = Warlog(postgres_config)
    game_id = new_freeform_game(service)
    service.close()
    pg = postgres_config.postgres
    source_url = f"postgresql://{pg['POSTGRES_USER']}@{pg['POSTGRES_HOST']}:{pg['POSTGRES_PORT']}/" \
                 f"{pg['POSTGRES_DBNAME']}?schema={pg['POSTGRES_SCHEMA']}"
    with fresh_schema() as url:
        env = {**os.environ, "WARLOG_DATABASE_URL": source_url, "WARLOG_DATA_DIR": str(tmp_path)}
        done = subprocess.run([sys.executable, "-m", "api.cli", "copy-store", "--to", url], env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        src, target = Warlog(postgres_config), Warlog(config_from_env({"WARLOG_DATABASE_URL": url}))
        try:
            assert list(target.export(game_id)) == list(src.export(game_id))
            assert target.recorder.max_notification_id() == src.recorder.max_notification_id()
            result = target.submit_order(game_id, "Blue", "pg-roll", ROLL)
            assert "DiceRolled" in [line["type"] for line in result.events]
        finally:
            src.close()
            target.close()
        again = subprocess.run([sys.executable, "-m", "api.cli", "copy-store", "--to", source_url], env=env,
                               capture_output=True, text=True, timeout=300)
    assert again.returncode == 2 and "the source store itself" in again.stderr, again.stderr


def test_copy_store_takes_a_target_migrated_alone_and_refuses_a_missing_schema(source):
    config, *_ = source
    with fresh_schema() as url:
        migrate(config_from_env({"WARLOG_DATABASE_URL": url}))  # what 'warlog migrate' leaves: still empty
        done = copy_store(os.path.dirname(config.sqlite_path), url)
        assert done.returncode == 0, done.stdout + done.stderr
    missing = copy_store(os.path.dirname(config.sqlite_path), url)  # dropped by now
    assert missing.returncode == 2 and "does not exist" in missing.stderr and "CREATE SCHEMA" in missing.stderr, \
        missing.stderr


def test_a_copy_that_stops_midway_says_what_to_do_not_a_traceback(source, monkeypatch, capsys):
    from api import cli, copystore
    from eventsourcing.persistence import OperationalError

    def lost(*args):
        raise OperationalError("server closed the connection unexpectedly")

    config, *_ = source
    monkeypatch.setenv("WARLOG_DATA_DIR", os.path.dirname(config.sqlite_path))
    monkeypatch.delenv("WARLOG_DATABASE_URL", raising=False)
    monkeypatch.setattr(copystore, "_copy_snapshots", lost)
    with fresh_schema() as url:
        assert cli.main(["copy-store", "--to", url]) == 1
    said = capsys.readouterr().err
    assert "the copy stopped (OperationalError: server closed" in said and "DROP SCHEMA" in said, said
