"""The clock sweep (workers/clock.py, domain/clock.py TC 2 and 4) with an injected clock: it
records a reminder once when it is due and a timeout once the deadline passes with nobody acting,
and the dispatcher mails them to the seats through a real SMTP server. No sleeps of days."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from domain.access import AccessStore
from domain.service import Warlog
from tests.unit.test_time_control import Turns  # noqa: F401  (registers toy_turns)
from tests.workers.notify_helpers import smtp_server
from projections.runner import Projections
from workers import notify
from workers.clock import ClockSweep, due, sweep_seconds
from workers.dispatch import EMAIL, Dispatcher, deliver

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)
PUBLIC = "https://warlog.example"


class Clock:
    def __init__(self):
        self.at = T0

    def __call__(self):
        return self.at


@pytest.fixture
def timed(app):
    """The app (on SQLite, then PostgreSQL) with a clock the test moves, and a toy_turns game (3 days
    per move, reminders 24 h and 2 h before) whose seats gave their addresses; White is to move."""
    clock = Clock()
    app.now = clock
    gid = app.create_game("toy_turns", time_control={"days": 3, "reminders": [24, 2]}).game_id
    access = AccessStore.for_service(app)
    for seat in ("White", "Black"):
        app.join(gid, seat, seat.lower())
        access.set_contact(gid, seat, f"{seat.lower()}@example.org")
    Projections(app).catch_up()  # the projector's work: the games index the sweep reads
    return app, clock, gid


def lines_of(app, gid, after):
    return [line["type"] for line in app.lines(gid, after=after)]


def test_the_sweep_records_each_reminder_once_and_the_timeout_once(timed):
    app, clock, gid = timed
    sweep = ClockSweep(app)
    start = app.get_game(gid).version
    assert sweep.sweep() == []  # three days left: nothing due
    clock.at = T0 + timedelta(days=2, hours=1)
    assert sweep.sweep() == [gid]
    assert sweep.sweep() == []
    clock.at = T0 + timedelta(days=2, hours=23)
    assert sweep.sweep() == [gid]
    clock.at = T0 + timedelta(days=3, seconds=1)
    assert sweep.sweep() == [gid] and sweep.sweep() == []
    assert lines_of(app, gid, start) == ["DeadlineReminder", "DeadlineReminder", "TimedOut"]
    assert [line["data"]["hours"] for line in app.lines(gid, after=start)[:2]] == [24, 2]
    # Black may claim now; a sweep after the end finds nothing
    app.claim_win(gid, "Black")
    assert sweep.sweep() == []


def test_reminders_and_the_timeout_are_mailed_to_the_right_seats(timed):
    app, clock, gid = timed
    rows: list[dict] = []
    dispatcher = Dispatcher(app, rows.append)
    while dispatcher.run_batch():
        pass
    rows.clear()
    with smtp_server() as (box, port):
        smtp = notify.SmtpSettings(host="127.0.0.1", port=port, sender="warlog@example.org", timeout=5)
        clock.at = T0 + timedelta(days=2, hours=1)
        ClockSweep(app).sweep()
        clock.at = T0 + timedelta(days=3, minutes=1)
        ClockSweep(app).sweep()
        while dispatcher.run_batch():
            pass
        assert sorted((r["seat"], r["channel"]) for r in rows) == [("Black", EMAIL), ("White", EMAIL)]
        for row in rows:
            assert deliver(app, row["game_id"], row["seq"], row["channel"], row["seat"], smtp=smtp,
                           public_url=PUBLIC) == "sent"
        [white] = box.to("white@example.org")
        [black] = box.to("black@example.org")
    assert "Your deadline is near" in white["Subject"] + white.get_payload(decode=True).decode()
    assert "claim the win" in black["Subject"] + black.get_payload(decode=True).decode()


def test_due_reads_the_map_views_clock_and_the_setting_is_checked():
    assert not due({"clock": None}, T0) and not due({}, T0)
    assert sweep_seconds({}) == 60 and sweep_seconds({"WARLOG_CLOCK_SWEEP_SECONDS": "0"}) == 0
    with pytest.raises(ValueError, match="WARLOG_CLOCK_SWEEP_SECONDS"):
        sweep_seconds({"WARLOG_CLOCK_SWEEP_SECONDS": "soon"})


def test_two_workers_sweeping_the_same_game_record_its_reminder_once(timed, store_config):
    app, clock, gid = timed
    other = Warlog(store_config)  # a second worker's service: its own copy of the game
    try:
        other.now = clock
        other.get_game(gid)
        start = app.get_game(gid).version
        clock.at = T0 + timedelta(days=2, hours=1)
        assert ClockSweep(app).sweep() == [gid]
        assert ClockSweep(other).sweep() == []  # its view shows the reminder the first recorded
        assert other.sweep_game(gid) is None  # and so does its copy of the game, brought up to date
        assert lines_of(app, gid, start) == ["DeadlineReminder"]
    finally:
        other.close()
