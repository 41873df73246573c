"""The clock sweep (workers/clock.py, domain/clock.py TC 2 and 4) with an injected clock: it
records a reminder once when it is due and a timeout once the deadline passes with nobody acting,
and the dispatcher mails them to the seats through a real SMTP server. No sleeps of days."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from domain.access import AccessStore
from domain.clock import stamp as clocks_stamp
from domain.service import Warlog
from tests.unit.test_time_control import Turns  # noqa: F401  (registers toy_turns)
from tests.workers.notify_helpers import confirm_address, smtp_server
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
        confirm_address(access, gid, seat, f"{seat.lower()}@example.org")
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


# ======================================== the games index says which games have something due ====
def next_due(app, gid):
    """The games index's ``next_due`` of a game once the projector has caught up."""
    Projections(app).catch_up()
    [row] = Projections(app).store.query_index([gid])
    return row["next_due"]


def at(**delta):
    return clocks_stamp(T0 + timedelta(**delta))


def test_the_index_holds_when_the_clock_next_has_something_due_through_a_game(app):
    clock = Clock()
    app.now = clock
    gid = app.create_game("toy_turns", time_control={"days": 3, "reminders": [24, 2], "vacation_days": 5}).game_id
    assert next_due(app, gid) is None  # TimeControlSet: nobody to move yet
    app.join(gid, "White", "white")
    app.join(gid, "Black", "black")
    assert next_due(app, gid) == at(days=2)  # DeadlineSet for T0 + 3 days: the 24 h reminder first
    clock.at = T0 + timedelta(days=2, hours=1)
    ClockSweep(app).sweep()
    assert next_due(app, gid) == at(days=2, hours=22)  # the 24 h reminder sent: the 2 h one
    clock.at = T0 + timedelta(days=2, hours=2)
    app.take_vacation(gid, "White", 1)  # TC 3: the deadline a day later, its reminders again
    assert next_due(app, gid) == at(days=3)
    clock.at = T0 + timedelta(days=4, seconds=1)
    assert ClockSweep(app).sweep() == [gid]
    assert next_due(app, gid) is None  # TimedOut: a claim or a late move comes next, not the sweep
    clock.at = T0 + timedelta(days=4, hours=1)
    app.grant_extension(gid, "Black", 1)  # TC 5: a day from now, the flag lifted
    assert next_due(app, gid) == at(days=4, hours=1)  # its 24 h reminder is due at once
    clock.at = T0 + timedelta(days=4, hours=2)
    app.submit_order(gid, "White", "w-1", {"kind": "move"})  # TC 1: Black's deadline
    assert next_due(app, gid) == at(days=6, hours=2)
    app.concede(gid, "Black")
    assert next_due(app, gid) is None
    untimed = app.create_game("toy_turns").game_id
    app.join(untimed, "White", "white")
    app.join(untimed, "Black", "black")
    assert next_due(app, untimed) is None


class Counted:
    """Which games' views a sweep reads: the ids given to ``store.load`` (also by a catch-up) and
    to ``Projections.current``."""

    def __init__(self, projections, monkeypatch):
        self.loaded: list[str] = []
        self.caught_up: list[str] = []
        load, current = projections.store.load, projections.current
        monkeypatch.setattr(projections.store, "load", lambda ids, *a, **k: load(self._add(self.loaded, ids), *a, **k))
        monkeypatch.setattr(projections, "current", lambda gid, *a, **k: current(self._add(self.caught_up, [gid])[0],
                                                                                 *a, **k))

    @staticmethod
    def _add(into, ids):
        ids = list(ids)
        into.extend(ids)
        return ids


def test_a_sweep_reads_the_views_of_the_games_with_something_due_only(app, monkeypatch):
    """Many active games without a clock, or with nothing due yet: no view of theirs is read, also
    while the projector is behind the log. The one game with a reminder due and the one with its
    deadline passed are swept as before."""
    clock = Clock()
    app.now = clock
    games = []
    for i in range(24):
        control = {"days": 3, "reminders": [24]} if i % 3 == 0 else None
        if i == 1:
            control = {"days": 1, "reminders": [12]}  # a deadline a day ahead of the others
        gid = app.create_game("toy_turns", time_control=control).game_id
        app.join(gid, "White", f"w{i}")
        app.join(gid, "Black", f"b{i}")
        games.append(gid)
    clock.at = T0 + timedelta(hours=12)
    app.submit_order(games[3], "White", "w-1", {"kind": "move"})  # games[3]: Black's 3 days from T0 + 12 h
    projections = Projections(app)
    projections.catch_up()
    sweep = ClockSweep(app, projections)
    counted = Counted(projections, monkeypatch)
    assert sweep.sweep() == [games[1]] and counted.loaded == [games[1]]  # games[1]'s 12 h reminder
    counted.loaded.clear()
    assert sweep.sweep() == [] and set(counted.loaded) == {games[1]}  # the index behind: caught up, then read
    projections.catch_up()
    counted.loaded.clear()
    counted.caught_up.clear()
    assert sweep.sweep() == [] and counted.loaded == [] and counted.caught_up == []
    clock.at = T0 + timedelta(days=2, hours=1)  # the 24 h reminders of the 3-day games, games[1] timed out
    app.submit_order(games[2], "White", "w-1", {"kind": "move"})  # a game without a clock: the projector behind
    start = {gid: app.get_game(gid).version for gid in games}
    recorded = sweep.sweep()
    due = [games[1]] + [gid for i, gid in enumerate(games) if i % 3 == 0 and i != 3]
    assert sorted(recorded) == sorted(due)
    # The projector is behind by games[2]'s move alone: no due game has an event after its
    # position, so none is caught up (projections.runner.ensure_current), each is read as it is.
    assert set(counted.loaded) == set(due) and counted.caught_up == []
    assert lines_of(app, games[1], start[games[1]]) == ["TimedOut"]
    assert all(lines_of(app, gid, start[gid]) == ["DeadlineReminder"] for gid in due[1:])
    assert all(lines_of(app, gid, start[gid]) == [] for gid in games if gid not in due)


def test_an_index_made_before_next_due_gains_the_column_filled_from_the_map_views(app):
    """A store migrated by an earlier warlog: its games index has no next_due until migrate adds it,
    filled from the active games' map views; a second migrate changes nothing."""
    clock = Clock()
    app.now = clock
    timed = app.create_game("toy_turns", time_control={"days": 3, "reminders": [24]}).game_id
    untimed = app.create_game("toy_turns").game_id
    ended = app.create_game("toy_turns", time_control={"days": 3}).game_id
    for gid in (timed, untimed, ended):
        app.join(gid, "White", "white")
        app.join(gid, "Black", "black")
    app.concede(ended, "White")
    projections = Projections(app)
    projections.catch_up()
    store = projections.store
    store._run("DROP INDEX {t}warlog_games_index_due")
    store._run("ALTER TABLE {t}warlog_games_index DROP COLUMN next_due")
    with pytest.raises(Exception):
        store.due_games(at(days=9))
    store.create_tables()
    rows = {r["game_id"]: r["next_due"] for r in store.query_index([timed, untimed, ended])}
    assert rows == {timed: at(days=2), untimed: None, ended: None}
    assert store.due_games(at(days=9)) == [timed] and store.due_games(at(days=1)) == []
    store.create_tables()  # again: the column is there, nothing more changes
    assert {r["game_id"]: r["next_due"] for r in store.query_index([timed, untimed, ended])} == rows
    clock.at = T0 + timedelta(days=2, hours=1)
    assert ClockSweep(app).sweep() == [timed]


@pytest.mark.parametrize("command", [["worker"], ["worker", "--webhooks"], ["dispatcher"]],
                         ids=["worker", "webhooks", "dispatcher"])
def test_a_worker_with_a_malformed_sweep_interval_stops_at_once_naming_it(tmp_path, command):
    """docs/configuration.md: a WARLOG_CLOCK_SWEEP_SECONDS that is not a number, or negative, stops
    `warlog worker` and `warlog dispatcher` at start, as a malformed allow-list or digest hour does: before it waits for a
    schema nobody has made yet (here none ever is) and before it touches Redis (here none answers)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "WARLOG_CLOCK_SWEEP_SECONDS": "soon", "WARLOG_DATA_DIR": str(tmp_path),
           "REDIS_URL": "redis://127.0.0.1:1/0"}
    env.pop("WARLOG_DATABASE_URL", None)
    done = subprocess.run([sys.executable, "-m", "api.cli", *command, *(["--burst"] if command[0] == "worker" else [])],
                          cwd=Path(__file__).resolve().parents[2], env=env, capture_output=True, text=True,
                          timeout=30)
    assert done.returncode == 1, done.stderr[-2000:]
    assert "WARLOG_CLOCK_SWEEP_SECONDS must be a number of seconds, not 'soon'" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command,name", [("dispatcher", "WARLOG_DISPATCH_POLL_SECONDS"),
                                          ("projector", "WARLOG_PROJECTOR_POLL_SECONDS")])
@pytest.mark.parametrize("value", ["soon", "0", "-1", "nan"])
def test_a_malformed_poll_interval_stops_the_process_at_once_naming_it(tmp_path, command, name, value):
    """docs/configuration.md: read before the process waits for the schema (none is ever made
    here); it waited, then ended with a traceback from float() or polled without a pause."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, name: value, "WARLOG_DATA_DIR": str(tmp_path), "REDIS_URL": "redis://127.0.0.1:1/0"}
    env.pop("WARLOG_DATABASE_URL", None)
    done = subprocess.run([sys.executable, "-m", "api.cli", command], cwd=Path(__file__).resolve().parents[2],
                          env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 1, done.stderr[-2000:]
    assert f"warlog {command}: {name} must be a number of seconds above 0, not '{value}'" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_game_the_sweep_cannot_continue_is_logged_and_the_other_games_are_swept(timed, tmp_path):
    """An imported game (docs/dice.md: it "can be read and verified, but not continued") whose
    deadline passed with on_timeout "pass": its pass needs a dice seed this server does not hold,
    and the IntegrityFailure ended every sweep, so no other game's reminders and timeouts were
    recorded. It is logged and left; the other games are swept."""
    from domain.storage import config_from_env

    app, clock, gid = timed
    elsewhere = Warlog(config_from_env({"WARLOG_DATA_DIR": str(tmp_path / "elsewhere")}), create_tables=True)
    elsewhere.now = lambda: T0
    imported = elsewhere.create_game("freeform", options={"sides": ["Blue", "Red"]},
                                     time_control={"days": 1, "on_timeout": "pass"}).game_id
    for seat in ("Blue", "Red"):
        elsewhere.join(imported, seat, seat.lower())
    text = list(elsewhere.export(imported, header=True))
    elsewhere.close()
    app.import_lines(text)
    Projections(app).catch_up()

    clock.at = T0 + timedelta(days=3, hours=1)  # both deadlines passed
    assert ClockSweep(app).sweep() == [gid]
    assert "TimedOut" in lines_of(app, gid, 0)
    assert len(app.lines(imported)) == len(text) - 1  # nothing recorded on the imported game


@pytest.mark.parametrize("days_after", [1, 400], ids=["a day late", "a year late"])
def test_tc_4_an_imported_games_clock_does_not_run_here_no_reminder_no_timeout(timed, tmp_path, days_after):
    """docs/operations.md, "The clock sweep": an imported game is a record (docs/dice.md: it "can be
    read and verified, but not continued": this server holds none of its dice seeds, and nobody
    holds a token of it here). Its deadline, set where it was played, is long past by this server's
    clock; with on_timeout "claim" the sweep recorded a TimedOut nobody incurred, and a reminder
    before it. Now nothing is recorded on it, however late, while the games played here are swept."""
    from domain.storage import config_from_env

    app, clock, gid = timed
    elsewhere = Warlog(config_from_env({"WARLOG_DATA_DIR": str(tmp_path / "elsewhere")}), create_tables=True)
    elsewhere.now = lambda: T0 - timedelta(days=10)
    imported = elsewhere.create_game("toy_turns", time_control={"days": 3, "reminders": [24],
                                                                "on_timeout": "claim"}).game_id
    for seat in ("White", "Black"):
        elsewhere.join(imported, seat, seat.lower())
    text = list(elsewhere.export(imported, header=True))
    elsewhere.close()
    assert '"DeadlineSet"' in text[-1]  # White's deadline runs: set elsewhere, 7 days before T0 + 3 days
    app.import_lines(text)
    Projections(app).catch_up()

    clock.at = T0 + timedelta(days=3 + days_after)  # every deadline passed, the local game's too
    sweep = ClockSweep(app)
    assert sweep.sweep() == [gid] and sweep.sweep() == []
    assert app.sweep_game(imported) is None
    assert len(app.lines(imported)) == len(text) - 1  # nothing recorded on the imported game
    assert lines_of(app, gid, 0)[-1] == "TimedOut"  # the game played here timed out as before
