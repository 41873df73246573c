"""A malformed setting stops the process that reads it at start, naming it (docs/configuration.md),
instead of failing later: each stream request or queued job with a 500, each job or delivery in a
worker, or the process with a bare ``int()`` traceback."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from domain.storage import config_from_env

ROOT = Path(__file__).resolve().parents[2]

WEB = ["WARLOG_STREAM_POLL_SECONDS", "WARLOG_STREAM_HEARTBEAT_SECONDS", "WARLOG_STREAM_MAX_SECONDS",
       "WARLOG_CONNECTIONS", "WARLOG_STREAM_RESERVE", "WARLOG_JOB_TIMEOUT", "WARLOG_JOB_RETRIES",
       "WARLOG_JOB_RETRY_INTERVALS"]
WORKERS = ["WARLOG_JOB_TIMEOUT", "WARLOG_JOB_RETRIES", "WARLOG_JOB_RETRY_INTERVALS",
           "WARLOG_NOTIFY_RETRY_INTERVALS", "WARLOG_ARTIFACT_MAX_AGE_DAYS", "WARLOG_ARTIFACT_MAX_FILES",
           "WARLOG_SMTP_PORT", "WARLOG_SMTP_TIMEOUT", "WARLOG_WEBHOOK_TIMEOUT"]


@pytest.mark.parametrize("name", WEB)
def test_a_malformed_web_setting_stops_the_app_at_start_naming_it(monkeypatch, name):
    from api.app import create_app

    monkeypatch.setenv(name, "soon")
    with pytest.raises(SystemExit, match=f"warlog: {name} must be"):
        create_app({"TESTING": True})


@pytest.mark.parametrize("command", ["worker", "dispatcher"])
@pytest.mark.parametrize("name", WORKERS)
def test_a_malformed_worker_setting_stops_the_worker_and_dispatcher_at_start_naming_it(monkeypatch, name, command):
    from api.cli import _worker_settings

    monkeypatch.setenv("WARLOG_SMTP_HOST", "mail.example.org")  # the SMTP settings are read when mail is sent
    monkeypatch.setenv(name, "soon")
    with pytest.raises(SystemExit, match=f"warlog {command}: {name} must be"):
        _worker_settings(command)


@pytest.mark.parametrize("name", ["WARLOG_ARTIFACT_MAX_AGE_DAYS", "WARLOG_SMTP_TIMEOUT", "WARLOG_WEBHOOK_TIMEOUT"])
def test_a_worker_timeout_or_age_of_zero_is_refused(monkeypatch, name):
    from api.cli import _worker_settings

    monkeypatch.setenv("WARLOG_SMTP_HOST", "mail.example.org")
    monkeypatch.setenv(name, "0")
    with pytest.raises(SystemExit, match=f"{name} must be a number of .* above 0"):
        _worker_settings("worker")


@pytest.mark.parametrize("raw", ["often", "-1", "2.5"])
def test_a_malformed_snapshot_interval_is_refused_naming_it(tmp_path, raw):
    with pytest.raises(ValueError, match="WARLOG_SNAPSHOT_INTERVAL must be a whole number"):
        config_from_env({"WARLOG_DATA_DIR": str(tmp_path), "WARLOG_SNAPSHOT_INTERVAL": raw})


def test_a_snapshot_interval_of_0_takes_no_snapshots(tmp_path):
    assert config_from_env({"WARLOG_DATA_DIR": str(tmp_path), "WARLOG_SNAPSHOT_INTERVAL": "0"}).snapshot_interval == 0


@pytest.mark.parametrize("name", ["WEB_CONCURRENCY", "WARLOG_CONNECTIONS", "WARLOG_LOCK_TIMEOUT"])
def test_gunicorns_settings_name_a_value_that_is_not_a_whole_number(monkeypatch, name):
    monkeypatch.setenv(name, "many")
    with pytest.raises(ValueError, match=f"{name} must be a whole number, at least 1, not 'many'"):
        runpy.run_path(str(ROOT / "api" / "gunicorn_conf.py"))


@pytest.mark.parametrize(("name", "zero"), [("WARLOG_TRUSTED_PROXIES", " (0: X-Forwarded-For is not trusted)"),
                                            ("WARLOG_GAMES_WINDOW_SECONDS", ""),
                                            ("WARLOG_GAMES_PER_ADDRESS", " (0: no limit)"),
                                            ("WARLOG_STATISTICS_JOBS", " (0: no limit)"),
                                            ("WARLOG_GAME_JOBS", " (0: no limit)")])
def test_a_malformed_count_is_refused_saying_what_0_means_for_it(monkeypatch, name, zero):
    """0 proxies is not "no limit" (docs/configuration.md): each refusal says what 0 is for that setting."""
    from api.app import create_app

    monkeypatch.setenv(name, "many")
    with pytest.raises(SystemExit) as refused:
        create_app({"TESTING": True})
    assert str(refused.value) == f"warlog: {name} must be a whole number{zero}, not 'many'"


@pytest.mark.parametrize("name,read", [
    ("WARLOG_SNAPSHOT_INTERVAL", lambda: config_from_env()),
    ("WARLOG_LOCK_TIMEOUT", lambda: config_from_env()),
    ("WARLOG_GAME_CACHE_BYTES", lambda: __import__("domain.service", fromlist=["x"]).game_cache_bytes(1)),
    ("WARLOG_DIGEST_HOUR", lambda: __import__("workers.notify_jobs", fromlist=["x"]).digest_hour()),
    ("WARLOG_JOB_RETRY_INTERVALS", lambda: __import__("workers.queue", fromlist=["x"]).retry_policy()),
])
@pytest.mark.parametrize("value", ["²", "٣"])  # digits to str.isdigit, not to int()
def test_a_number_in_other_digits_is_refused_naming_the_setting(monkeypatch, name, read, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=name):
        read()
