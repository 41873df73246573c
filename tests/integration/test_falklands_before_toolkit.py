"""A Falklands game made before the step engine and the generic events moved into the rules
toolkit (issue 31) still imports, verifies and loads: its export
(tests/data/falklands_before_toolkit.jsonl.gz, written by the code of commit 48201fe) and its
stored rows, whose topics name the classes where they were (``domain.rulesets.falklands.events``)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from domain import events as ev
from domain.rulesets import find_ruleset
from domain.verify import verify_text
from projections.folds import to_event
from tests.conftest import make_app
from tests.integration.rawstore import RawStore

EXPORT = Path(__file__).resolve().parents[1] / "data" / "falklands_before_toolkit.jsonl.gz"
MOVED = ("UnitEntered", "UnitEmbarked", "UnitDisembarked", "UnitRepaired", "UnitWithdrawn", "BattleBegun",
         "EffectGained", "EffectSpent")
OLD_MODULE = "domain.rulesets.falklands.events"


def export_text() -> list[str]:
    with gzip.open(EXPORT, "rt", encoding="utf-8") as f:
        return f.read().splitlines()


def folded_state(text: list[str]) -> dict:
    rules, state = find_ruleset("falklands"), None
    for raw in text:
        state = rules.evolve(state, to_event(json.loads(raw), "falklands"))
    return state


def test_an_export_made_before_the_toolkit_verifies_imports_and_exports_unchanged(app):
    text = export_text()
    report, lines = verify_text(text)
    assert report.ok and lines[0]["data"]["ruleset"] == "falklands"
    assert {line["type"] for line in lines} >= {*MOVED} - {"UnitWithdrawn"}
    game_id = app.import_lines(text)
    assert list(app.export(game_id)) == text
    assert app.check_integrity(game_id).ok
    game = app.get_game(game_id)
    assert game.version == len(text) and game.state == folded_state(text)


def test_stored_rows_under_the_old_topics_of_the_moved_events_still_load(store_config):
    text = export_text()
    first = make_app(store_config)
    try:
        game_id = first.import_lines(text)
    finally:
        first.close()
    renamed = 0
    with RawStore(store_config) as raw:
        for version, topic, _ in raw.events(game_id):
            module, _, name = topic.partition(":")
            if name in MOVED:
                assert module == "domain.events"
                raw.set_topic(game_id, version, f"{OLD_MODULE}:{name}")  # as the old server stored it
                renamed += 1
    assert renamed > 50

    again = make_app(store_config)  # a fresh application: nothing cached
    try:
        assert again.check_integrity(game_id).ok
        assert list(again.export(game_id)) == text
        battles = [line for line in again.lines(game_id) if line["type"] == "BattleBegun"]
        assert battles and again.get_game(game_id).state == folded_state(text)
        stored = again.events.get(again.get_game(game_id).id, lte=battles[0]["seq"], gt=battles[0]["seq"] - 1)
        assert [type(e) for e in stored] == [ev.BattleBegun]
    finally:
        again.close()
