"""``WARLOG_LOCK_TIMEOUT``: how long a write waits for a lock another writer holds, on either store
(docs/configuration.md); past it the request answers 503 store_unavailable."""

from __future__ import annotations

import pytest

from domain.storage import config_from_env

PG = "postgresql://postgres@127.0.0.1:5432/test"


def test_unset_keeps_each_stores_default(tmp_path):
    sqlite = config_from_env({"WARLOG_DATA_DIR": str(tmp_path)})
    postgres = config_from_env({"WARLOG_DATABASE_URL": PG})
    assert sqlite.eventsourcing_env(create_table=False)["SQLITE_LOCK_TIMEOUT"] == "30"
    assert postgres.eventsourcing_env(create_table=False)["POSTGRES_LOCK_TIMEOUT"] == "10"


def test_a_value_reaches_either_stores_settings(tmp_path):
    sqlite = config_from_env({"WARLOG_DATA_DIR": str(tmp_path), "WARLOG_LOCK_TIMEOUT": "3"})
    postgres = config_from_env({"WARLOG_DATABASE_URL": PG, "WARLOG_LOCK_TIMEOUT": " 4 "})
    assert sqlite.eventsourcing_env(create_table=False)["SQLITE_LOCK_TIMEOUT"] == "3"
    assert postgres.eventsourcing_env(create_table=False)["POSTGRES_LOCK_TIMEOUT"] == "4"


@pytest.mark.parametrize("raw", ["0", "-1", "1.5", "soon"])
def test_anything_but_a_whole_number_of_seconds_is_refused_naming_the_variable(tmp_path, raw):
    with pytest.raises(ValueError, match="WARLOG_LOCK_TIMEOUT must be a whole number of seconds"):
        config_from_env({"WARLOG_DATA_DIR": str(tmp_path), "WARLOG_LOCK_TIMEOUT": raw})
