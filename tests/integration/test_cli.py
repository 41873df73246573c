"""The ``warlog`` admin commands in a subprocess, on a real SQLite store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from domain.service import Warlog
from domain.storage import config_from_env
from tests.conftest import new_freeform_game


def warlog(*args: str, data_dir) -> subprocess.CompletedProcess:
    env = {**os.environ, "WARLOG_DATA_DIR": str(data_dir)}
    env.pop("WARLOG_DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "api.cli", *args], env=env, capture_output=True,
                          text=True, timeout=60)


@pytest.fixture
def played(tmp_path):
    """A finished freeform game in a store under tmp_path/a."""
    data = tmp_path / "a"
    assert warlog("migrate", data_dir=data).returncode == 0
    app = Warlog(config_from_env({"WARLOG_DATA_DIR": str(data)}))
    game_id = new_freeform_game(app)
    app.submit_order(game_id, "Blue", "o1", {"kind": "roll", "dice": "4d6", "purpose": "artillery"})
    app.submit_order(game_id, "Red", "o2", {"kind": "end", "winner": "Red", "reason": "held"})
    app.close()
    return data, game_id


def test_export_verify_import_round_trip(played, tmp_path):
    data, game_id = played
    out = tmp_path / "game.jsonl"
    exported = warlog("export", game_id, "-o", str(out), data_dir=data)
    assert exported.returncode == 0, exported.stderr
    lines = out.read_text().splitlines()
    assert json.loads(lines[0]) == {"warlog_export": {"version": 2}}  # export v2; no server key locally
    assert json.loads(lines[1])["type"] == "GameCreated"

    checked = warlog("verify", str(out), data_dir=data)
    assert checked.returncode == 0, checked.stdout
    assert checked.stdout.startswith("OK") and "1 rolls (4 dice) verified" in checked.stdout

    other = tmp_path / "b"
    assert warlog("migrate", data_dir=other).returncode == 0
    imported = warlog("import", str(out), data_dir=other)
    assert imported.returncode == 0, imported.stderr
    assert warlog("export", game_id, data_dir=other).stdout.splitlines() == lines
    again = warlog("import", str(out), data_dir=other)
    assert again.returncode == 1 and "already exists" in again.stderr


def test_verify_exits_non_zero_and_names_the_line_of_a_tampered_file(played, tmp_path):
    data, game_id = played
    out = tmp_path / "game.jsonl"
    warlog("export", game_id, "-o", str(out), data_dir=data)
    lines = out.read_text().splitlines()
    line = json.loads(lines[6])  # event 6, after the header line
    line["data"]["purpose"] = "something else"
    lines[6] = json.dumps(line)
    out.write_text("\n".join(lines) + "\n")
    checked = warlog("verify", str(out), data_dir=data)
    assert checked.returncode == 1
    assert "FAILED" in checked.stdout and "line 6:" in checked.stdout

    refused = warlog("import", str(out), data_dir=tmp_path / "c")
    assert refused.returncode == 1 and "line 6" in refused.stderr


def test_check_verifies_a_stored_game_and_an_unknown_game_is_a_clear_error(played):
    data, game_id = played
    assert warlog("check", game_id, data_dir=data).returncode == 0
    missing = warlog("check", "00000000-0000-0000-0000-000000000000", data_dir=data)
    assert missing.returncode == 1 and "no game" in missing.stderr
    garbage = warlog("export", "not-a-uuid", data_dir=data)
    assert garbage.returncode == 1 and "no game" in garbage.stderr


def test_check_takes_a_unique_prefix_of_a_stored_game_id(played, tmp_path, monkeypatch):
    """The operator gives what other commands take: the start (8 hex digits or more) of a game id,
    found among the games of the local store; an unknown or too short prefix is a clear error."""
    monkeypatch.setenv("WARLOG_CLIENT_CONFIG", str(tmp_path / "nobody.json"))  # no saved game helps
    data, game_id = played
    checked = warlog("check", game_id[:8], data_dir=data)
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.startswith("OK") and game_id in checked.stdout
    assert warlog("check", game_id[:13].upper(), data_dir=data).returncode == 0
    other = format((int(game_id[:8], 16) + 1) % 16**8, "08x")
    unknown = warlog("check", other, data_dir=data)
    assert unknown.returncode == 1 and "no game id in sqlite:" in unknown.stderr, unknown.stderr
    assert str(data) in unknown.stderr and f"starts with '{other}'" in unknown.stderr
    short = warlog("check", game_id[:7], data_dir=data)
    assert short.returncode == 2 and "8 hex digits" in short.stderr


def test_check_names_the_stored_games_an_ambiguous_prefix_starts(tmp_path, monkeypatch):
    import uuid

    import domain.service

    monkeypatch.setenv("WARLOG_CLIENT_CONFIG", str(tmp_path / "nobody.json"))
    data = tmp_path / "a"
    assert warlog("migrate", data_dir=data).returncode == 0
    ids = iter([uuid.UUID("abcdef01-0000-4000-8000-000000000001"), uuid.UUID("abcdef01-1000-4000-8000-000000000002")])
    monkeypatch.setattr(domain.service, "new_game_id", lambda: next(ids))
    app = Warlog(config_from_env({"WARLOG_DATA_DIR": str(data)}))
    first, second = new_freeform_game(app), new_freeform_game(app)
    app.close()
    ambiguous = warlog("check", "abcdef01", data_dir=data)
    assert ambiguous.returncode == 2 and first in ambiguous.stderr and second in ambiguous.stderr, ambiguous.stderr
    assert warlog("check", "abcdef01-1", data_dir=data).returncode == 0  # more of it: one game


def test_check_stops_a_damaged_game_and_accept_damage_records_the_operators_decision(played):
    from domain.errors import DamagedLog
    from tests.integration.rawstore import RawStore
    from tests.integration.test_tamper import change_die_value

    data, game_id = played
    config = config_from_env({"WARLOG_DATA_DIR": str(data)})
    app = Warlog(config)
    try:
        with RawStore(config) as raw:
            k = change_die_value(raw, game_id, [json.loads(line) for line in app.export(game_id)])
        checked = warlog("check", game_id, data_dir=data)
        assert checked.returncode == 1 and checked.stdout.startswith(f"FAILED game {game_id}")
        assert f"DAMAGED: the game takes no orders until an operator acts (first line {k})" in checked.stdout
        with pytest.raises(DamagedLog):
            app.concede(game_id, "Blue")
        blank = warlog("check", game_id, "--accept-damage", " ", data_dir=data)
        assert blank.returncode == 1 and "reason" in blank.stderr
        accepted = warlog("check", game_id, "--accept-damage", "kept: the players agree", data_dir=data)
        assert accepted.returncode == 1, "the log still fails verification"
        assert f"accepted by the operator: line(s) {k} (kept: the players agree)" in accepted.stdout
        assert "DAMAGED" not in accepted.stdout
        [line] = app.damage.of(game_id).lines
        assert (line.seq, line.reason) == (k, "kept: the players agree") and line.accepted_at
        again = warlog("check", game_id, "--accept-damage", "twice", data_dir=data)
        assert "nothing to accept" in again.stdout
        assert app.damage.of(game_id).lines[0].reason == "kept: the players agree"
    finally:
        app.close()


def test_verify_of_a_missing_file_is_a_usage_error(tmp_path):
    result = warlog("verify", str(tmp_path / "nope.jsonl"), data_dir=tmp_path)
    assert result.returncode == 2 and "No such file" in result.stderr


def test_the_projector_waits_for_the_schema_instead_of_crashing(tmp_path):
    """A Procfile runner starts every process at once: only the web line migrates."""
    import signal
    import time

    env = {**os.environ, "WARLOG_DATA_DIR": str(tmp_path / "d"), "WARLOG_PROJECTOR_POLL_SECONDS": "0.2"}
    env.pop("WARLOG_DATABASE_URL", None)
    proc = subprocess.Popen([sys.executable, "-m", "api.cli", "projector"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        time.sleep(2)
        assert proc.poll() is None, proc.stdout.read()
        assert warlog("migrate", data_dir=tmp_path / "d").returncode == 0
        time.sleep(2)
        assert proc.poll() is None, proc.stdout.read()
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=20)
    assert proc.returncode == 0, out
    assert "waiting for the schema" in out and "Traceback" not in out


def test_a_process_started_before_its_database_waits_for_it_and_says_so(caplog):
    """The web, projector and worker commands wait for a PostgreSQL server that does not answer
    yet (they ended with a traceback after 5 s), saying so once, and give up with a message."""
    import logging

    from api.app import wait_for_database
    from bench.server import free_port

    config = config_from_env({"WARLOG_DATABASE_URL": f"postgresql://postgres@127.0.0.1:{free_port()}/test"})
    with caplog.at_level(logging.WARNING, logger="warlog"), pytest.raises(SystemExit) as stopped:
        wait_for_database(config, timeout=1.5, poll=0.2)
    assert str(stopped.value).startswith("warlog: the database does not answer after 2 s (OperationalError")
    assert str(stopped.value).endswith("check that it runs and WARLOG_DATABASE_URL")
    said = [r.getMessage() for r in caplog.records if r.name == "warlog"]
    assert len(said) == 1 and said[0].startswith("waiting for the database, which does not answer"), said


@pytest.mark.postgres
@pytest.mark.parametrize("change, says", [("user", 'role "warlog_nobody" does not exist'),
                                          ("database", 'database "warlog_nowhere" does not exist')])
def test_a_database_that_answers_and_refuses_ends_the_wait_at_once_in_its_own_words(postgres_config, change, says):
    """A wrong user or database is answered the same however long one waits: the commands end at
    once with the server's words, not after two minutes of waiting."""
    from api.app import wait_for_database

    pg = postgres_config.postgres
    user = "warlog_nobody" if change == "user" else pg["POSTGRES_USER"]
    database = "warlog_nowhere" if change == "database" else pg["POSTGRES_DBNAME"]
    url = f"postgresql://{user}@{pg['POSTGRES_HOST']}:{pg['POSTGRES_PORT']}/{database}"
    config = config_from_env({"WARLOG_DATABASE_URL": url})
    started = time.monotonic()
    with pytest.raises(SystemExit) as stopped:
        wait_for_database(config, timeout=60, poll=0.2)
    assert time.monotonic() - started < 10
    assert str(stopped.value) == f"warlog: the database refuses the connection (FATAL: {says}); check WARLOG_DATABASE_URL"


def test_a_wait_whose_first_try_outlasts_it_still_says_what_it_waited_for(sqlite_config, monkeypatch, caplog):
    """A first try slower than the whole wait (a store retrying a lost connection for two
    seconds, against a wait of one) logged nothing before giving up: the warning comes first."""
    import logging

    from eventsourcing.persistence import OperationalError

    import api.app

    def slow_and_down(service):
        time.sleep(0.3)
        raise OperationalError("server closed the connection unexpectedly")
    monkeypatch.setattr(api.app, "schema_ready", slow_and_down)
    service = Warlog(sqlite_config)
    try:
        with caplog.at_level(logging.WARNING, logger="warlog"), pytest.raises(SystemExit) as stopped:
            api.app.wait_for_schema(service, timeout=0.1, poll=0.05)
    finally:
        service.close()
    assert str(stopped.value).startswith("warlog: still waiting for the database, which does not answer")
    said = [r.getMessage() for r in caplog.records if r.name == "warlog"]
    assert len(said) == 1 and said[0].startswith("waiting for the database"), said


@pytest.mark.postgres
def test_waiting_for_the_schema_of_a_database_gone_away_names_the_database(postgres_config, caplog):
    import logging

    from api.app import wait_for_database, wait_for_schema
    from tests.conftest import make_app
    from tests.reliability.faults import CuttableLink

    make_app(postgres_config).close()
    link = CuttableLink.to_postgres(postgres_config)
    config = config_from_env({"WARLOG_DATABASE_URL": link.database_url(postgres_config)})
    wait_for_database(config, timeout=5)  # it answers: at once
    service = Warlog(config)
    try:
        wait_for_schema(service, timeout=5)  # migrated: at once
        link.cut()
        with caplog.at_level(logging.WARNING, logger="warlog"), pytest.raises(SystemExit) as stopped:
            wait_for_schema(service, timeout=1.0, poll=0.2)
    finally:
        link.restore()
        service.close()
        link.close()
    assert str(stopped.value).startswith("warlog: still waiting for the database, which does not answer")
    said = [r.getMessage() for r in caplog.records if r.name == "warlog"]
    assert len(said) == 1 and said[0].startswith("waiting for the database"), said


def test_a_reader_that_stops_reading_ends_the_command_quietly(tmp_path):
    """``warlog … | head`` : the pipe's reader goes away; no "Broken pipe" error, no traceback."""
    env = {**os.environ, "WARLOG_DATA_DIR": str(tmp_path / "data")}
    env.pop("WARLOG_DATABASE_URL", None)
    read, write = os.pipe()
    os.close(read)  # nobody will read what the command prints
    try:
        done = subprocess.run([sys.executable, "-m", "api.cli", "migrate"], env=env, stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write)
    assert done.returncode == 141, done.stderr
    assert "Broken pipe" not in done.stderr and "Traceback" not in done.stderr
