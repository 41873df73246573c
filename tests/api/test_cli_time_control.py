"""Time control from the command line (issue 35, "Time"): ``new --days``, ``games`` showing whose
move it is and how long they have, ``vacation``, ``extend`` and ``claim-win`` signed with the seat's key,
against a live server whose clock the test moves."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone

from tests.api.test_client import alice, bob, clean_env, server  # noqa: F401  (fixtures)
from tests.unit.test_time_control import Turns  # noqa: F401  (registers toy_turns)

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)


def test_a_game_with_a_time_control_from_new_to_a_claim_on_time(server, alice, bob):
    service = server.app.app.extensions["warlog"]
    at = {"now": T0}
    service.now = lambda: at["now"]
    code, out, err = alice("new", "toy_turns", "--days", "3", "--vacation-days", "2", "--reminder", "12",
                           "--server", server.url)
    assert code == 0, err
    game_id = out.split()[1]
    invites = alice.saved()["games"][game_id]["invites"]
    assert alice("join", game_id, invites["White"], "--handle", "alice")[0] == 0
    assert bob("join", game_id, invites["Black"], "--handle", "bob", "--server", server.url)[0] == 0

    at["now"] = T0 + timedelta(hours=5)
    code, out, err = alice("games")
    assert code == 0, err
    assert "to move: White, 2 d 19 h left (by 2026-11-04T12:00:00+00:00)" in out, out

    code, out, err = alice("vacation", game_id, "1", "--key", "away-1")
    assert code == 0 and "vacation of 1 day(s) recorded" in out, err
    assert "White is on vacation for 1 day" in out and "moves to 2026-11-05T12:00:00+00:00" in out, out
    code, again, err = alice("vacation", game_id, "1", "--key", "away-1")  # its answer lost: sent again
    assert code == 0 and "(replayed: this command, under its key, was recorded before" in again, err
    assert again.splitlines()[1:] == out.splitlines()[1:], (out, again)
    code, out, err = alice("vacation", game_id, "2")
    assert code == 1 and "1 of its 2 vacation days left" in err, err

    code, out, err = bob("claim-win", game_id)
    assert code == 1 and "claimed only after it [time]" in err, err
    code, out, err = alice("extend", game_id, "1")
    assert code == 1 and "to move itself" in err, err
    code, out, err = bob("extend", game_id, "1")
    assert code == 0 and "1 more day(s) given" in out, err
    assert "Black signed its extension" in out and "moves to 2026-11-06T12:00:00+00:00" in out, out
    at["now"] = T0 + timedelta(days=4, hours=1)
    code, out, err = bob("games")
    assert "to move: White, 23 h 0 min left" in out, out  # the vacation and the extension: two days on
    at["now"] = T0 + timedelta(days=5, hours=1)
    code, out, err = bob("games")
    assert "deadline 2026-11-06T12:00:00+00:00 passed" in out, out
    code, out, err = bob("claim-win", game_id)
    assert code == 0 and "win claimed on time" in out, err
    assert "Black claims the win on time against White" in out and "Black signed its claim win" in out, out
    code, out, err = bob("new", "toy_turns", "--per", "turn", "--server", server.url)
    assert code == 2 and "--days" in err


def test_a_vacation_whose_answer_is_lost_names_its_key_and_sent_again_with_it_is_recorded_once(server, alice, bob):
    """Without --key the CLI made a key nobody saw: a vacation whose answer did not come could
    only be sent again as a new one, spending its days twice."""
    import time

    service = server.app.app.extensions["warlog"]
    code, out, err = alice("new", "toy_turns", "--days", "3", "--vacation-days", "4", "--server", server.url)
    assert code == 0, err
    game_id = out.split()[1]
    invites = alice.saved()["games"][game_id]["invites"]
    assert alice("join", game_id, invites["White"], "--handle", "alice")[0] == 0
    assert bob("join", game_id, invites["Black"], "--handle", "bob", "--server", server.url)[0] == 0

    recorded = service.take_vacation

    def slow(*a, **kw):  # recorded, then the answer comes too late for the CLI
        done = recorded(*a, **kw)
        time.sleep(1.5)
        return done

    service.take_vacation = slow
    try:
        code, out, err = alice("vacation", game_id, "2", "--timeout", "0.5")
    finally:
        service.take_vacation = recorded
    assert code != 0 and "the vacation may or may not be recorded: send it again with --key " in err, err
    key = err.split("--key ")[1].split()[0].rstrip(",")
    code, out, err = alice("vacation", game_id, "2", "--key", key)
    assert code == 0 and "(replayed: this command, under its key, was recorded before" in out, err
    code, out, err = alice("show", game_id, "--json")
    assert code == 0, err
    assert json.loads(out)["clock"]["vacations"]["White"]["used"] == 2
