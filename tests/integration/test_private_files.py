"""The data folder and what warlog writes in it are for the service's user only (issue 29, item 6):
the database holds the open epochs' seeds (which predict the dice) and the webhooks' secrets.
``make run``'s embedded Redis is checked in tests/e2e/test_stack.py."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from domain.storage import config_from_env
from tests.conftest import make_app, new_freeform_game
from workers.jobs import artifact_path, write_atomic

ROLL = {"kind": "roll", "dice": "2d6", "purpose": "fire"}


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_fresh_data_folder_and_its_files_are_for_the_service_user_only(tmp_path):
    os.umask(old := os.umask(0o022))  # the usual umask, whatever the test runner's
    try:
        data = tmp_path / "data"
        config = config_from_env({"WARLOG_DATA_DIR": str(data)})
        service = make_app(config)
        try:
            game_id = new_freeform_game(service)
            service.submit_order(game_id, "Blue", "o1", ROLL)  # a save: the writer's lock file
            made = {p.name for p in data.iterdir()}
            assert {"warlog.sqlite3", "warlog.sqlite3-wal", "warlog.sqlite3-shm", "warlog.sqlite3.writer-lock"} <= made
        finally:
            service.close()
        artifact = artifact_path(data / "artifacts", "replay", game_id, 4, "public", "html")
        write_atomic(artifact, "<html></html>")
    finally:
        os.umask(old)
    assert mode(data) == 0o700 and mode(data / "artifacts") == 0o700
    for path in data.rglob("*"):
        assert mode(path) & 0o077 == 0, f"{path.name} is {oct(mode(path))}"


def test_a_database_an_older_warlog_made_readable_is_made_private(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    for name in ("warlog.sqlite3", "warlog.sqlite3-wal", "warlog.sqlite3.writer-lock"):
        (data / name).touch()
        os.chmod(data / name, 0o644)
    config_from_env({"WARLOG_DATA_DIR": str(data)})
    assert {p.name: mode(p) for p in data.iterdir()} == dict.fromkeys(
        ("warlog.sqlite3", "warlog.sqlite3-wal", "warlog.sqlite3.writer-lock"), 0o600)
