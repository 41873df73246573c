"""Round 12b: Falklands Showdown read as an umpire reads a played game, the late game (seeded
random games with other weights, read turn by turn against the text; docs/rulesets.md)."""

from __future__ import annotations

import pytest

from tests.unit.falklands.helpers import AR, FixedDice, empty, events_of, place, play, set_phase


@pytest.mark.parametrize("result", ["3-2", "3-3"])
def test_fs_11_3_the_target_of_opportunity_ends_under_the_result_rolled(result):
    """FS 11.3 "3-2 & 3-3: AR Target of Opportunity ... As his next operation": the log's line that
    the effect ends names the result rolled. A played game (seed 1, Op #6 weighed up) rolled 3-3
    at the end of turn 2 and its end in the AR's turn-3 operation read "AR Target of Opportunity
    ends (FS 11.3 3-2)", a result nobody had rolled that turn."""
    st = empty()
    set_phase(st, "AR Submarine")
    uk_die, ar_die = (int(x) for x in result.split("-"))
    out, st = play(st, AR, {"kind": "submarines", "moves": {}}, FixedDice(uk_die, ar_die))
    assert st["effects"][AR]["ar_target_of_opportunity"] == {"event": result}
    set_phase(st, "AR Operations")
    out, st = play(st, AR, {"kind": "pass"})  # his next operation: the target of opportunity is gone
    (spent,) = [e for e in events_of(out, "EffectSpent") if e["effect"] == "ar_target_of_opportunity"]
    assert spent["rule"] == f"FS 11.3 {result}"
    assert "ar_target_of_opportunity" not in st["effects"][AR]


@pytest.mark.parametrize("status", ["held", "used"])
def test_fs_11_3_6_4_rolled_again_the_log_says_no_event(status):
    """FS 11.3 6-4 "This event may happen only once per game; treat it as 'no event' if rolled
    again." Two games played this round (one random, one with a UK pushing ashore) rolled 6-4 a
    second time, and the log read "Random event
    6-4: Land-Launched Exocet Available" with nothing after it: an umpire reading it would hand the
    AR a second Exocet. The line now says the result is no event; nothing else happens."""
    st = empty()
    place(st, "hermes", "falklands")
    st["exocet"] = status
    set_phase(st, "AR Submarine")
    out, after = play(st, AR, {"kind": "submarines", "moves": {}}, FixedDice(6, 4))
    (e,) = events_of(out, "RandomEventDrawn")
    assert e["result"] == "6-4" and "no event" in e["title"] and "once per game" in e["title"]
    assert after["exocet"] == status and after["pending"] == [] and not events_of(out, "EffectGained")


def test_fs_11_3_6_4_rolled_the_first_time_reads_as_printed():
    st = empty()
    set_phase(st, "AR Submarine")
    out, after = play(st, AR, {"kind": "submarines", "moves": {}}, FixedDice(6, 4))
    (e,) = events_of(out, "RandomEventDrawn")
    assert e["title"] == "Land-Launched Exocet Available" and after["exocet"] == "held"
