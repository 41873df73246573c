"""One hot game: many clients ordering in ONE game at once, over HTTP, on a live gunicorn server
(2 workers) on SQLite and on PostgreSQL.

Every answer is 201 (recorded) or 409 version_conflict (nothing recorded; the client sends the
same order id again); in the end every order is recorded exactly once, the log is gapless and
verifies, and what each client was told is what the log holds. A client that timed out and
sends its order id again gets the first result: the same seqs, the same dice.
"""

from __future__ import annotations

import socket
import threading
import time

from tests.reliability.client import Game, Http, assert_no_secret_in_log, assert_sound_log, without_text
from tests.reliability.faults import children, wait_until, writes_blocked

CLIENTS = 32
ORDERS_EACH = 3
ATTEMPTS = 400  # per order; a client that loses this many races fails the test
DEADLINE = 150.0  # seconds for all clients together


def roll(order_id: str) -> dict:
    return {"kind": "roll", "dice": "2d6", "purpose": f"fire {order_id}",
            "target": {"compare": ">=", "value": 7}}


def test_32_clients_on_one_game_record_every_order_exactly_once(store):
    with store.serve(WEB_CONCURRENCY="2") as url:
        http = Http(url)
        game = Game(http)
        start = game.summary()["version"]
        answers: dict[int, list[tuple[str, int, dict]]] = {i: [] for i in range(CLIENTS)}
        errors: list[BaseException] = []
        barrier = threading.Barrier(CLIENTS)
        ends = time.monotonic() + DEADLINE

        def client(i: int) -> None:
            seat = ("Blue", "Red")[i % 2]
            try:
                barrier.wait(timeout=30)
                for n in range(ORDERS_EACH):
                    order_id = f"c{i}-o{n}"
                    for _ in range(ATTEMPTS):
                        assert time.monotonic() < ends, "out of time"
                        reply = game.order(seat, roll(order_id), order_id, expect=None)
                        answers[i].append((order_id, reply.status, reply.body))
                        if reply.status != 409:
                            break
                    else:
                        raise AssertionError(f"{order_id} lost {ATTEMPTS} races in a row")
            except BaseException as exc:  # reported by the test
                errors.append(exc)
                barrier.abort()

        threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(CLIENTS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=max(1.0, ends - time.monotonic() + 5))
        assert not any(t.is_alive() for t in threads), "a client hung"
        assert not errors, errors[:3]

        everything = [a for client_answers in answers.values() for a in client_answers]
        statuses = {status for _, status, _ in everything}
        assert statuses <= {201, 409}, sorted(statuses)
        conflicts = [body for _, status, body in everything if status == 409]
        assert conflicts, "no two orders ever raced: the test did not test anything"
        for body in conflicts:
            assert body["code"] == "version_conflict" and isinstance(body["current_version"], int), body

        lines = assert_sound_log(game)
        wanted = sorted(f"c{i}-o{n}" for i in range(CLIENTS) for n in range(ORDERS_EACH))
        recorded = [line["data"]["order_id"] for line in lines if line["type"] == "OrderAccepted"]
        assert sorted(recorded) == wanted  # each exactly once, none lost
        assert len(lines) == start + 2 * len(wanted)  # OrderAccepted + DiceRolled each, nothing else
        by_seq = {line["seq"]: line for line in lines}
        for order_id, status, body in everything:
            if status != 201:
                continue
            told = [without_text(e) for e in body["events"]]
            assert [e["type"] for e in told] == ["OrderAccepted", "DiceRolled"], order_id
            assert told == [by_seq[e["seq"]] for e in told], order_id  # what the client was told is the log
            assert told[0]["data"]["order_id"] == order_id
            assert body["version"] == told[-1]["seq"] and body["chain_head"] == told[-1]["hash"]
        assert_no_secret_in_log(http, url.log())


def test_a_retry_after_a_client_timeout_gets_the_original_result(store):
    with store.serve(WEB_CONCURRENCY="2") as url:
        http = Http(url)
        game = Game(http)
        game.order("Blue", roll("warm-up"))
        before = game.summary()["version"]
        order = roll("the slow one")
        with writes_blocked(store.config) as hold:
            conn = http.connection(timeout=1.0)
            try:
                http.send(conn, "POST", game.path("/orders"), order, token=game.tokens["Red"],
                          headers={"Idempotency-Key": "slow-1"})
                hold.wait_for_waiter(children(url.pid))
                try:
                    http.read(conn)
                    raise AssertionError("the order was answered while its write was blocked")
                except (TimeoutError, socket.timeout):
                    pass  # the client gave up; the server is still at it
            finally:
                conn.close()
        # The lock is gone: the server records the order the client stopped waiting for.
        wait_until(lambda: game.summary()["version"] > before, 15, "the timed-out order was never recorded")
        lines = game.export()
        stored = [line for line in lines if line["seq"] > before]
        assert [line["type"] for line in stored] == ["OrderAccepted", "DiceRolled"]
        assert stored[0]["data"]["order_id"] == "slow-1"

        for _ in range(2):  # the retry, and a retry of the retry
            again = game.order("Red", order, "slow-1", expect=200)
            assert again.headers.get("Idempotent-Replayed") == "true" and again.body["replayed"] is True
            assert [without_text(e) for e in again.body["events"]] == stored  # same seqs, same dice
            assert again.body["version"] == stored[-1]["seq"] and again.body["chain_head"] == stored[-1]["hash"]
        assert game.summary()["version"] == stored[-1]["seq"]  # and nothing new was recorded
        # The same id with another body is refused, naming the problem.
        other = game.order("Red", roll("something else"), "slow-1", expect=422)
        assert other.body["code"] == "idempotency_conflict"
        assert_sound_log(game)
