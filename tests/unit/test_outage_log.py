"""storage.OutageLog: a background loop's failures while a part does not answer are one warning
and one line when it goes on again; any other failure is an error with its traceback each time."""

from __future__ import annotations

import logging
import sqlite3

from eventsourcing.persistence import OperationalError

from domain.storage import OutageLog, store_not_answering


def wrapped(cause: Exception) -> OperationalError:
    try:
        raise OperationalError(cause) from cause
    except OperationalError as exc:
        return exc


def test_an_outage_is_one_warning_and_its_end_one_line(caplog):
    log = logging.getLogger("tests.outage")
    outage = OutageLog(log, "projector")
    with caplog.at_level(logging.INFO, logger="tests.outage"):
        outage.got_through()  # nothing to say while all is well
        for _ in range(5):
            outage.failed(wrapped(sqlite3.OperationalError("database is locked")), 0.5)
        outage.got_through()
        outage.got_through()
    assert [(r.levelname, r.getMessage().split(" (")[0].split(",")[0]) for r in caplog.records] == [
        ("WARNING", "projector: the store does not answer"), ("WARNING", "projector: going on again")]
    assert "OperationalError: database is locked" in caplog.records[0].getMessage()
    assert all(r.exc_info is None for r in caplog.records)


def test_any_other_failure_is_logged_with_its_traceback_every_time(caplog):
    log = logging.getLogger("tests.outage")
    outage = OutageLog(log, "dispatcher")
    with caplog.at_level(logging.INFO, logger="tests.outage"):
        for _ in range(3):
            try:
                {}["missing"]
            except KeyError as exc:
                outage.failed(exc, 1.0)
        # A statement SQLite refuses is a bug, not an outage.
        outage.failed(wrapped(sqlite3.OperationalError("no such table: warlog_events")), 1.0)
    assert [r.levelname for r in caplog.records] == ["ERROR"] * 4
    assert all(r.exc_info is not None and r.getMessage() == "dispatcher failed; retrying in 1.0s"
               for r in caplog.records)


def test_what_is_down_is_named_by_the_loop(caplog):
    outage = OutageLog(logging.getLogger("tests.outage"), "dispatcher",
                       lambda exc: "Redis" if isinstance(exc, ConnectionError) else None)
    with caplog.at_level(logging.INFO, logger="tests.outage"):
        outage.failed(ConnectionError("refused"), 1.0)
    assert caplog.records[0].getMessage() == ("dispatcher: Redis does not answer (ConnectionError: refused); "
                                              "trying again every 1.0s")
    assert not store_not_answering(ConnectionError("refused"))


def test_the_dispatcher_names_the_store_or_redis():
    import redis

    from workers.dispatch import _not_answering

    assert _not_answering(wrapped(sqlite3.OperationalError("database is locked"))) == "the store"
    assert _not_answering(redis.exceptions.ConnectionError("Error 111 connecting")) == "Redis"
    assert _not_answering(redis.exceptions.TimeoutError("Timeout reading from socket")) == "Redis"
    assert _not_answering(redis.exceptions.ResponseError("WRONGTYPE")) is None
    assert _not_answering(ValueError("a bug")) is None
