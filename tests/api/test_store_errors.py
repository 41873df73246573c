"""Which storage errors are the store not answering (503 store_unavailable, docs/api.md) and which
are a bug (500 internal_error, logged with its traceback)."""

from __future__ import annotations

import sqlite3

import psycopg
from eventsourcing.persistence import ConnectionUnavailableError, InterfaceError, OperationalError

from api.problems import store_not_answering


def wrapped(cause: Exception) -> OperationalError:
    """As eventsourcing's datastores raise it: the driver's error as the cause."""
    try:
        raise OperationalError(cause) from cause
    except OperationalError as exc:
        return exc


def test_a_lock_a_full_disk_or_a_lost_connection_is_the_store_not_answering():
    for text in ("database is locked", "database table is locked", "disk I/O error",
                 "unable to open database file", "database or disk is full"):
        assert store_not_answering(wrapped(sqlite3.OperationalError(text))), text
    assert store_not_answering(wrapped(psycopg.errors.LockNotAvailable("canceling statement due to lock timeout")))
    assert store_not_answering(wrapped(psycopg.OperationalError("server closed the connection unexpectedly")))
    assert store_not_answering(ConnectionUnavailableError("Timed out waiting for return of writer"))
    assert store_not_answering(InterfaceError("connection already closed"))


def test_a_wrong_statement_sqlite_files_as_operational_is_a_bug():
    for text in ("no such table: warlog_tokens", 'near "SELEC": syntax error', "no such column: x"):
        assert not store_not_answering(wrapped(sqlite3.OperationalError(text))), text


def test_a_missing_table_answers_500_with_the_traceback_logged(sqlite_config, caplog):
    from api.app import create_app, migrate
    from domain.service import Warlog

    migrate(sqlite_config)
    service = Warlog(sqlite_config)
    try:
        client = create_app({"WARLOG_SERVICE": service, "TESTING": True}).test_client()
        created = client.post("/api/v1/games", json={"ruleset": "freeform", "options": {"sides": ["Blue", "Red"]}})
        assert created.status_code == 201
        with sqlite3.connect(sqlite_config.sqlite_path) as db:
            db.execute("DROP TABLE warlog_tokens")  # a deployment that skipped part of `warlog migrate`
        reply = client.post(f"/api/v1/games/{created.json['game_id']}/umpire-tokens",
                            headers={"Authorization": f"Bearer {created.json['admin_token']}"})
        assert reply.status_code == 500 and reply.json["code"] == "internal_error"
        assert "Traceback" in caplog.text and "no such table: warlog_tokens" in caplog.text
    finally:
        service.close()
