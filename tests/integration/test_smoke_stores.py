from tests.conftest import new_freeform_game


def test_a_freeform_game_is_recorded_and_verifies_on_each_store(app):
    game_id = new_freeform_game(app)
    result = app.submit_order(game_id, "Blue", "o1", {"kind": "roll", "dice": "2d6", "purpose": "test"})
    assert [e["type"] for e in result.events] == ["OrderAccepted", "DiceRolled"]
    report = app.check_integrity(game_id)
    assert report.ok, report.summary()
    assert report.events == result.version
