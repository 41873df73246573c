"""The statistics as pure functions: the chi-square p-value, exact roll probabilities, the luck
index of a constructed game, and statistics across generated games."""

from __future__ import annotations

import math
import random

import pytest

from workers import stats
from workers.stats import chi2_sf, chi_square, gammaq, success_probability
from tests.workers.games import generated_game, line

# (statistic, degrees of freedom, p) from the chi-square tables
KNOWN = [(11.07, 5, 0.05), (3.841, 1, 0.05), (6.635, 1, 0.01), (18.307, 10, 0.05), (9.236, 5, 0.10),
         (1.145, 5, 0.95), (49.802, 35, 0.05), (0.0, 3, 1.0), (30.578, 15, 0.01)]


@pytest.mark.parametrize("x, df, p", KNOWN)
def test_chi_square_p_values_match_the_tables(x, df, p):
    assert chi2_sf(x, df) == pytest.approx(p, abs=5e-4)


def test_the_incomplete_gamma_function_against_closed_forms():
    for x in (0.1, 0.5, 1, 2.5, 7, 20, 60):
        assert gammaq(1, x) == pytest.approx(math.exp(-x), rel=1e-10)  # Q(1, x) = e^-x
        assert gammaq(0.5, x) == pytest.approx(math.erfc(math.sqrt(x)), rel=1e-9)  # Q(1/2, x) = erfc(√x)


def test_chi_square_of_counts():
    assert chi_square({1: 10, 2: 10, 3: 10, 4: 10, 5: 10, 6: 10})["chi2"] == 0
    skewed = chi_square({1: 60}, range(1, 7))
    assert skewed["df"] == 5 and skewed["chi2"] == 300 and skewed["p"] < 1e-10
    assert chi_square({}, range(1, 7))["p"] is None


def test_success_probabilities_are_exact():
    assert success_probability(2, 6, False, {"compare": ">=", "value": 7}) == pytest.approx(21 / 36)
    assert success_probability(1, 6, False, {"compare": ">=", "value": 5,
                                             "modifiers": [{"value": 1, "reason": "veteran"}]}) == pytest.approx(3 / 6)
    assert success_probability(1, 20, False, {"compare": "<", "value": 1}) == 0
    assert success_probability(3, 6, False, {"compare": "==", "value": 10}) == pytest.approx(27 / 216)
    # d66: two ordered d6 read as tens and units; 41..66 is 3 tens of 6 units minus nothing = 18 of 36
    assert success_probability(2, 6, True, {"compare": ">=", "value": 41}) == pytest.approx(18 / 36)


def test_luck_index_of_a_constructed_game():
    # Blue rolls 2d6 >= 7 four times (p = 21/36 each) and succeeds 4 times; Red rolls d6 >= 6
    # three times (p = 1/6) and fails every time.
    lines = generated_game(rolls=[("Blue", [3, 4], {"compare": ">=", "value": 7}, "success")] * 4
                           + [("Red", [2], {"compare": ">=", "value": 6}, "failure")] * 3)
    luck = stats.game_statistics(lines)["luck"]
    assert luck["Blue"]["rolls"] == 4 and luck["Blue"]["achieved"] == 4
    assert luck["Blue"]["expected"] == pytest.approx(4 * 21 / 36, abs=1e-6)
    assert luck["Blue"]["luck"] == pytest.approx(4 - 4 * 21 / 36, abs=1e-6)
    assert luck["Red"]["expected"] == pytest.approx(0.5, abs=1e-6) and luck["Red"]["luck"] == pytest.approx(-0.5, abs=1e-6)
    assert luck["Red"]["z"] == pytest.approx(-0.5 / math.sqrt(3 * (1 / 6) * (5 / 6)), abs=1e-5)


def test_faces_per_seat_and_die_size_and_vp_timeline():
    lines = generated_game(rolls=[("Blue", [1, 2], None, None), ("Red", [6], None, None), ("Blue", [6, 6], None, None)],
                           vp=[("Blue", 2), ("Red", 1), ("Blue", 5)])
    s = stats.game_statistics(lines)
    assert s["dice"]["by_seat"]["Blue"]["d6"]["faces"] == {"1": 1, "2": 1, "3": 0, "4": 0, "5": 0, "6": 2}
    assert s["dice"]["all"]["d6"]["n"] == 5 and s["dice"]["all"]["d6"]["df"] == 5
    assert [(e["side"], e["total"]) for e in s["vp"]["timeline"]] == [("Blue", 2), ("Red", 1), ("Blue", 5)]
    assert s["vp"]["final"] == {"Blue": 5, "Red": 1}
    charts = stats.charts(s)
    for svg in charts.values():
        assert svg.startswith("<svg") and svg.endswith("</svg>") and "NaN" not in svg


def test_a_taken_back_roll_counts_for_fairness_but_not_for_luck():
    lines = generated_game(rolls=[("Blue", [6], {"compare": ">=", "value": 6}, "success")])
    seq = next(x["seq"] for x in lines if x["type"] == "DiceRolled")
    order = next(x["seq"] for x in lines if x["type"] == "OrderAccepted")
    lines.append(line(lines, "TakeBackAccepted", {"seat": "Red", "order_id": "o1", "superseded_from": order,
                                                  "superseded_to": seq, "superseded_rolls": [seq], "restored": {}}))
    s = stats.game_statistics(lines)
    assert s["luck"] == {} and s["dice"]["all"]["d6"]["n"] == 1


def test_statistics_across_generated_games():
    rng = random.Random(7)
    games = []
    for n in range(300):
        rolls = [("Blue" if k % 2 else "Red", [rng.randint(1, 6), rng.randint(1, 6)], None, None) for k in range(6)]
        d66 = [("Blue", [rng.randint(1, 6), rng.randint(1, 6)], None, None)]
        winner = "Blue" if n % 3 else ("Red" if n % 2 else None)
        games.append(generated_game(rolls=rolls, d66=d66, vp=[("Blue", n % 4)], winner=winner, turns=1 + n % 5))
    out = stats.cross_game_statistics(iter(games), "freeform")["rulesets"]["freeform"]
    assert out["games"] == 300 and out["ended"] == 300
    assert out["win_rate"]["Blue"]["wins"] == 200 and out["draws"] == 50
    assert out["win_rate"]["Blue"]["rate"] == pytest.approx(200 / 300, abs=1e-6)
    assert out["length"]["turns"]["min"] == 1 and out["length"]["turns"]["max"] == 5
    assert out["final_vp"]["Blue"]["histogram"] == {0: 75, 1: 75, 2: 75, 3: 75}
    assert out["operations"]["roll"] == 300 * 7
    assert out["d66"]["n"] == 300 and len(out["d66"]["counts"]) == 36 and out["d66"]["df"] == 35
    assert out["d66"]["p"] > 0.001  # the generator is uniform
    assert out["dice"]["d6"]["n"] == 300 * 14 and out["dice"]["d6"]["p"] > 0.001


def test_another_rulesets_games_are_not_counted():
    game = generated_game()
    game[0] = {**game[0], "data": {**game[0]["data"], "ruleset": "other"}}
    assert stats.cross_game_statistics([game], "freeform")["rulesets"] == {}
