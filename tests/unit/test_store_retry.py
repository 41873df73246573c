"""``storage.retry_store``: a failed statement is tried again when its connection was lost, not
when the store was waited for as long as allowed (``StoreWaitedOut``: a lock, a connection from
the pool; domain/pgrecorder.py raises it, tests/integration/test_pgrecorder.py)."""

from __future__ import annotations

import psycopg
import pytest
from eventsourcing.persistence import OperationalError
from psycopg_pool import PoolTimeout

from domain.storage import StoreWaitedOut, retry_store, store_not_answering


def failing(causes: list[Exception]):
    """A statement that fails with each of ``causes`` in turn (wrapped as eventsourcing wraps
    the driver's errors), then answers; ``calls`` counts the attempts."""
    calls = []

    @retry_store
    def statement():
        calls.append(1)
        if len(calls) <= len(causes):
            cause = causes[len(calls) - 1]
            if isinstance(cause, (psycopg.errors.LockNotAvailable, PoolTimeout)):
                raise StoreWaitedOut(str(cause)) from cause  # as pgrecorder.Datastore raises it
            raise OperationalError(str(cause)) from cause
        return "answered"
    return statement, calls


def test_a_lost_connection_is_tried_again():
    statement, calls = failing([psycopg.OperationalError("server closed the connection unexpectedly")] * 2)
    assert statement() == "answered" and len(calls) == 3


@pytest.mark.parametrize("cause", [psycopg.errors.LockNotAvailable("canceling statement due to lock timeout"),
                                   PoolTimeout("couldn't get a connection after 5.00 sec")],
                         ids=["lock timeout", "no connection"])
def test_a_wait_that_ran_out_is_not_tried_again(cause):
    statement, calls = failing([cause])
    with pytest.raises(StoreWaitedOut) as raised:
        statement()
    assert len(calls) == 1 and store_not_answering(raised.value)
