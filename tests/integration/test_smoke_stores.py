from tests.conftest import new_freeform_game


def test_a_freeform_game_is_recorded_and_verifies_on_each_store(app):
    game_id = new_freeform_game(app)
    result = app.submit_order(game_id, "Blue", "o1", {"kind": "roll", "dice": "2d6", "purpose": "test"})
    assert [e["type"] for e in result.events] == ["OrderAccepted", "DiceRolled"]
    report = app.check_integrity(game_id)
    assert report.ok, report.summary()
    assert report.events == result.version


def test_stored_games_are_found_by_the_start_of_their_id_on_each_store(app):
    """``warlog check`` finds a stored game by the start of its id: the event store's ids, with
    or without the id's dashes, in either case; a start no id has, or not hex, finds none."""
    first, second = new_freeform_game(app), new_freeform_game(app)
    assert app.game_ids_starting(first[:8]) == [first]
    assert app.game_ids_starting(second[:13].upper()) == [second]
    assert app.game_ids_starting(second.replace("-", "")) == [second]
    assert sorted(app.game_ids_starting("")) == [] and app.game_ids_starting("xyz12345") == []
    assert sorted(set(app.game_ids_starting(first[0])) | set(app.game_ids_starting(second[0]))) == sorted([first, second])
