"""Time control of a game played by mail: deadlines, reminders, vacations, timeouts (issue 35).

A game may set a time control when it is created (``TimeControlSet``, right after GameCreated):

TC 1  Allowance: the seats to move (``Game.whose_move``) have ``days`` to act. Per "move", the
      clock starts again whenever the seats to move change or one of them gives an order; per
      "turn", when the seats to move change or the game turn advances. A pass (TC 4) starts it
      again either way. Each start is a ``DeadlineSet``.
TC 2  Reminders: ``reminders`` hours before a deadline the seats to move are reminded
      (``DeadlineReminder``), each reminder once per deadline.
TC 3  Vacation: each seat may announce up to ``vacation_days`` days of vacation in the whole game
      (``VacationTaken``), a whole number of days at a time, taken at once. A deadline of the seat
      running then moves on by the days taken (``DeadlineExtended``); one set during the vacation
      runs from its end.
TC 4  Timeout: a deadline passed with nobody acting is recorded (``TimedOut``). With ``on_timeout``
      "claim", any other seat may then claim the win (``WinClaimed``, then ``GameEnded``) until the
      late seat acts; with "pass", the server gives the ruleset's pass order for the late seat
      (rulesets' ``timeout_pass``), an order like any other, whose id starts ``timeout:``.
TC 5  Extension: a seat not to move may give the seats to move more days (``ExtensionGranted``,
      then ``DeadlineExtended``), also once their deadline has passed: that lifts the flag.

The clock is the server's: every function here takes ``now`` (an aware datetime) from the
caller, so the domain stays pure and tests use a fixed clock. ``apply`` is the one fold of the
clock, used by the aggregate and the map view alike.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from domain.errors import InvalidSetup

RULE = "time"  # the rule a time-control refusal names
PER = ("move", "turn")
ON_TIMEOUT = ("claim", "pass")
MAX_DAYS = 60  # per move or turn
MAX_VACATION_DAYS = 60  # per seat, in the whole game
MAX_REMINDERS = 5
TIMEOUT_ID_PREFIX = "timeout:"  # the ids of the pass orders the server gives at a timeout


def check_control(raw: Any, passes: bool) -> dict:
    """A time control as it is recorded, from a request's ``time_control``; ``passes``: whether
    the ruleset defines a pass (TC 4). Raises InvalidSetup naming what is wrong."""
    if not isinstance(raw, dict):
        raise InvalidSetup("time_control is a JSON object: {days, per, reminders, vacation_days, on_timeout}")
    unknown = sorted(set(raw) - {"days", "per", "reminders", "vacation_days", "on_timeout"})
    if unknown:
        raise InvalidSetup(f"time_control has no field {', '.join(unknown)}")
    days = raw.get("days")
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= MAX_DAYS:
        raise InvalidSetup(f"time_control.days is a whole number of days from 1 to {MAX_DAYS}")
    per = raw.get("per", "move")
    if per not in PER:
        raise InvalidSetup(f"time_control.per is one of {', '.join(PER)}")
    reminders = raw.get("reminders", [24] if days > 1 else [])
    if not isinstance(reminders, list) or len(reminders) > MAX_REMINDERS or any(
            isinstance(h, bool) or not isinstance(h, int) or not 1 <= h < days * 24 for h in reminders):
        raise InvalidSetup(f"time_control.reminders is a list of at most {MAX_REMINDERS} whole numbers of hours "
                           f"before the deadline, each from 1 to {days * 24 - 1}")
    vacation = raw.get("vacation_days", 0)
    if isinstance(vacation, bool) or not isinstance(vacation, int) or not 0 <= vacation <= MAX_VACATION_DAYS:
        raise InvalidSetup(f"time_control.vacation_days is a whole number from 0 to {MAX_VACATION_DAYS}")
    on_timeout = raw.get("on_timeout", "claim")
    if on_timeout not in ON_TIMEOUT:
        raise InvalidSetup(f"time_control.on_timeout is one of {', '.join(ON_TIMEOUT)}")
    if on_timeout == "pass" and not passes:
        raise InvalidSetup("time_control.on_timeout 'pass': this ruleset defines no pass; use 'claim'")
    return {"days": days, "per": per, "reminders": sorted(set(reminders), reverse=True),
            "vacation_days": vacation, "on_timeout": on_timeout, "rule": RULE}


def stamp(when: datetime) -> str:
    """A deadline as the log writes it: ISO 8601 in UTC, to the second."""
    return when.astimezone(timezone.utc).replace(microsecond=0).isoformat()


def parse(text: str) -> datetime:
    return datetime.fromisoformat(text)


# ================================================================================ the fold ====
def empty(control: dict) -> dict:
    """The clock of a game with ``control``, before anyone is to move."""
    return {"control": control, "seats": [], "deadline": None, "set": None, "moved": False, "restart": False,
            "timed_out": False, "reminded": [], "vacations": {}, "stopped": False}


def apply(clock: dict | None, event_type: str, data: dict, seq: int) -> dict | None:
    """The clock after one event of the log (None: the game has no time control)."""
    if event_type == "TimeControlSet":
        return empty({k: data[k] for k in ("days", "per", "reminders", "vacation_days", "on_timeout", "rule")})
    if clock is None:
        return None
    if event_type == "DeadlineSet":
        return {**clock, "seats": list(data["seats"]), "deadline": data["deadline"], "set": seq, "moved": False,
                "restart": False, "timed_out": False, "reminded": []}
    if event_type == "DeadlineExtended":
        # a later deadline: its reminders come again when they are due
        return {**clock, "deadline": data["deadline"], "timed_out": False, "reminded": []}
    if event_type == "DeadlineReminder":
        return {**clock, "reminded": [h for h in clock["control"]["reminders"] if h >= data["hours"]]}
    if event_type == "TimedOut":
        return {**clock, "timed_out": True}
    if event_type == "VacationTaken":
        return {**clock, "vacations": {**clock["vacations"], data["seat"]: {"used": data["used"],
                                                                             "until": data["until"]}}}
    if event_type == "OrderAccepted" and data.get("seat") in clock["seats"]:
        passed = str(data.get("order_id")).startswith(TIMEOUT_ID_PREFIX)
        # a late order lifts the flag (TC 4); the server's pass starts the clock again (TC 1)
        return {**clock, "moved": True, "timed_out": False, "restart": clock.get("restart") or passed}
    if event_type == "TurnAdvanced":
        return {**clock, "restart": True}
    if event_type == "GameEnded":
        return {**clock, "stopped": True, "seats": [], "deadline": None, "timed_out": False}
    return clock


# ============================================================================= the checks ====
def vacation_left(clock: dict, seat: str) -> int:
    return clock["control"]["vacation_days"] - clock["vacations"].get(seat, {}).get("used", 0)


def on_vacation_until(clock: dict, seats: list[str], now: datetime) -> datetime:
    """When the clock of ``seats`` may start: now, or the end of the latest vacation running."""
    start = now
    for seat in seats:
        found = clock["vacations"].get(seat)
        if found and parse(found["until"]) > start:
            start = parse(found["until"])
    return start


def next_deadline(clock: dict, seats: list[str], now: datetime) -> str:
    return stamp(on_vacation_until(clock, seats, now) + timedelta(days=clock["control"]["days"]))


def needs_deadline(clock: dict, seats: list[str]) -> bool:
    """Whether the clock starts again now (TC 1): the seats to move changed, the turn advanced or
    the server passed since the deadline was set, or per move one of them gave an order."""
    if clock["stopped"] or not seats:
        return False
    if clock["deadline"] is None or sorted(seats) != sorted(clock["seats"]) or clock.get("restart"):
        return True
    return clock["control"]["per"] == "move" and clock["moved"]


def reminder_due(clock: dict, now: datetime) -> int | None:
    """The hours of the reminder due now (the nearest the deadline of those due and not yet
    sent), or None (TC 2)."""
    if clock["deadline"] is None or clock["timed_out"]:
        return None
    deadline = parse(clock["deadline"])
    if now >= deadline:
        return None
    due = [h for h in clock["control"]["reminders"]
           if h not in clock["reminded"] and now >= deadline - timedelta(hours=h)]
    return min(due) if due else None


def timed_out(clock: dict, now: datetime) -> bool:
    """Whether the deadline running has passed and is not recorded as such yet (TC 4)."""
    return clock["deadline"] is not None and not clock["timed_out"] and now >= parse(clock["deadline"])


def next_due(clock: dict | None) -> str | None:
    """When the sweep next has something to record (TC 2, TC 4), as ``stamp`` text (text order is
    time order): the earliest reminder not yet sent, else the deadline. None when nothing can fall
    due: no time control, no deadline running (not started, ended) or its timeout already recorded
    (a claim or a late move comes next). ``reminder_due(clock, now)`` or ``timed_out(clock, now)``
    holds exactly when this is at or before ``now``."""
    if clock is None or clock["deadline"] is None or clock["timed_out"]:
        return None
    deadline = parse(clock["deadline"])
    unsent = [h for h in clock["control"]["reminders"] if h not in clock["reminded"]]
    return stamp(deadline - timedelta(hours=max(unsent)) if unsent else deadline)


def status(clock: dict | None, now: datetime, running: bool = True) -> dict | None:
    """What anyone may read of a game's clock: its control, who is to move by when, how many
    seconds are left, whether the deadline has passed, and each seat's vacation. A clock that does
    not run here (``running`` False: an imported game) is shown as its log left it: no seconds
    counted by this server's clock, timed out only where the log records it."""
    if clock is None:
        return None
    deadline = clock["deadline"]
    left = None if deadline is None or not running else max(0, int((parse(deadline) - now).total_seconds()))
    return {"control": clock["control"], "seats": clock["seats"], "deadline": deadline, "seconds_left": left,
            "running": running, "timed_out": bool(clock["timed_out"] or (left is not None and left == 0)),
            "vacations": {seat: {"used": v["used"], "until": v["until"],
                                 "left": clock["control"]["vacation_days"] - v["used"]}
                          for seat, v in clock["vacations"].items()}}
