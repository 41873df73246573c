"""FS 5.3 and 11.3 1-1: what the offered pass says it costs."""

from __future__ import annotations

from tests.unit.falklands.helpers import R, UK, events_of, fresh, play


def _pass_note(st: dict) -> str:
    return [o for o in R.legal_orders(st, UK) if o["kind"] == "pass"][0]["note"]


def test_fs_11_3_1_1_the_pass_offered_for_the_free_first_operation_says_it_is_free():
    st = fresh(superiority=True)
    assert "free" in _pass_note(st) and "spends" not in _pass_note(st)
    out, after = play(st, UK, {"kind": "pass"})
    done = events_of(out, "OperationCompleted")[0]
    assert done["uk_operations_left"] == st["uk_operations_left"]  # the note says what the pass costs
    assert "spends a UK operation" in _pass_note(after)  # the second of the two is paid for


def test_fs_5_3_a_uk_pass_without_1_1_says_it_spends_a_uk_operation():
    st = fresh()
    assert "spends a UK operation" in _pass_note(st)
    out, _ = play(st, UK, {"kind": "pass"})
    assert events_of(out, "OperationCompleted")[0]["uk_operations_left"] == st["uk_operations_left"] - 1
