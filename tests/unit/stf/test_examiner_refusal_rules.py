"""Every refused order names the rule it breaks, and the rule whose words forbid it (an examiner's
check of the rule argument of the refusals; the text, 003_74ca0e4e298164eb.txt, is the authority)."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from tests.unit.stf.helpers import play, search_state, system_group


def test_stf_8_2_a_contact_not_yet_on_the_board_is_refused_under_8_2():
    """STF 8.2 "The player, however, must evaluate the contacts on the board": a GameSystem group
    not on the map is no contact to search; 8.1 (contacts, some valid, some not) forbids nothing."""
    st = search_state(system_group("TF1", hex=None, status="off map"))
    with pytest.raises(RuleViolation) as e:
        play(st, {"kind": "search", "group": "TF1", "search_value": 5})
    assert e.value.rule == "STF 8.2" and "on the board" in e.value.detail

