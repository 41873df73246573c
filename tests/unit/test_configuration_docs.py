"""docs/configuration.md lists every setting the code reads, each with the default the code uses,
and no setting the code does not read."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIGURATION_MD = ROOT / "docs" / "configuration.md"
CODE = ("api", "domain", "workers", "projections")
BENCH = ("bench",)  # python -m bench, make bench: their own settings are in the page's "Benchmarks" table

# Names spelled like settings that are keys of the Flask config only (a test's create_app config).
NOT_SETTINGS = {"WARLOG_SERVICE", "WARLOG_REDIS"}
# eventsourcing's own settings, which warlog builds in a dict (StoreConfig.eventsourcing_env).
EVENTSOURCING = {"POSTGRES_LOCK_TIMEOUT", "POSTGRES_SCHEMA"}


def _read_in(*folders: str) -> set[str]:
    """Every environment variable the code in ``folders`` names: a quoted WARLOG_ name, or any name
    read with ``environ.get(...)`` / ``env.get(...)`` / ``environ[...]``."""
    names: set[str] = set()
    for folder in folders:
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            names |= set(re.findall(r"[\"'](WARLOG_[A-Z0-9_]+)[\"']", text))
            names |= set(re.findall(r"\b(?:environ|env)(?:\.get\(|\[)\s*[\"']([A-Z][A-Z0-9_]*)[\"']", text))
    return names


def _documented() -> dict[str, str]:
    """Each name docs/configuration.md gives as `NAME`, with the section it is in ("" before the
    first table, "test" in the test-only table, "bench" in the benchmarks' table)."""
    found: dict[str, str] = {}
    section = ""
    for line in CONFIGURATION_MD.read_text(encoding="utf-8").splitlines():
        if line.startswith("Test-only"):
            section = "test"
        elif line.startswith("Benchmarks"):
            section = "bench"
        elif line.startswith("## "):
            section = ""
        for name in re.findall(r"`((?:WARLOG_|BENCH_|REDIS_URL|PORT|WEB_CONCURRENCY)[A-Z0-9_]*)`", line):
            found.setdefault(name, section)
    return found


def test_every_setting_the_code_reads_is_in_configuration_md():
    read = _read_in(*CODE) - NOT_SETTINGS - EVENTSOURCING
    missing = sorted(read - set(_documented()))
    assert not missing, f"read by the code, not in docs/configuration.md: {missing}"


def test_every_setting_the_benchmarks_read_is_in_configuration_md():
    """bench/ reads the server's settings (documented above) and its own (the "Benchmarks" table)."""
    missing = sorted(_read_in(*BENCH) - NOT_SETTINGS - set(_documented()))
    assert not missing, f"read by bench/, not in docs/configuration.md: {missing}"


def test_every_setting_configuration_md_lists_is_read_by_the_code():
    documented = _documented()
    served = {name for name, section in documented.items() if section not in ("test", "bench")}
    tests_only = {name for name, section in documented.items() if section == "test"}
    bench_only = {name for name, section in documented.items() if section == "bench"}
    assert not sorted(served - _read_in(*CODE)), "documented, read by no code"
    assert not sorted(tests_only - _read_in("tests")), "documented as test-only, read by no test"
    make = set(re.findall(r"\$\((\w+)\)", (ROOT / "Makefile").read_text(encoding="utf-8")))  # make bench's BENCH_ARGS
    assert not sorted(bench_only - _read_in(*BENCH) - make), "documented for the benchmarks, read by no benchmark"


def test_the_benchmarks_defaults_in_configuration_md_are_the_codes():
    """Read where they are used: the literal beside the name in bench/."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "bench").rglob("*.py"))
    rows = {name: line for line in CONFIGURATION_MD.read_text(encoding="utf-8").splitlines()
            for name in re.findall(r"^\| `(\w+)` \|", line)}
    for name in ("WARLOG_BENCH_POSTGRES_URL", "BENCH_PYSPY"):
        code = re.findall(rf"environ\.get\(\"{name}\", \"([^\"]+)\"\)", text)
        assert name in rows and len(code) == 1 and rows[name].split(" | ")[1] == f"`{code[0]}`", (name, code)


def _defaults(doc: Path = CONFIGURATION_MD) -> dict[str, str]:
    """The first value of each table row's default column in ``doc``, without its backticks."""
    rows = re.findall(r"^\| `([A-Z0-9_]+)` \| ([^|]*) \|", doc.read_text(encoding="utf-8"), re.M)
    return {name: re.match(r"`?([^`\s]*)", default.strip()).group(1) for name, default in rows}


def _clean(monkeypatch, tmp_path):
    for name in list(__import__("os").environ):
        if name.startswith("WARLOG_") or name in ("PORT", "WEB_CONCURRENCY", "REDIS_URL"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def _code_defaults() -> dict[str, object]:
    """What each setting is when it is unset, asked of the code that reads it."""
    from api import limits
    from api.app import client_timeout, max_umpire_tokens
    from api.cli import build_parser
    from api.stream import StreamSettings, budget_limit
    from domain.service import Warlog, game_cache_bytes
    from domain.storage import config_from_env, data_dir_from_env
    from workers import jobs, notify, notify_jobs, queue
    from workers.clock import sweep_seconds

    smtp = notify.SmtpSettings.from_env({"WARLOG_SMTP_HOST": "mail.example.org"})

    serve = build_parser()._subparsers._group_actions[0].choices["serve"]
    stream = StreamSettings.from_env()
    return {
        "WARLOG_DATA_DIR": data_dir_from_env().name,
        "WARLOG_SNAPSHOT_INTERVAL": config_from_env().snapshot_interval,
        "WARLOG_LOCK_TIMEOUT": int(config_from_env().eventsourcing_env(create_table=False)["SQLITE_LOCK_TIMEOUT"]),
        "WARLOG_GAME_CACHE_BYTES": game_cache_bytes(Warlog.GAME_CACHE_BYTES),
        "WARLOG_HOST": serve.get_default("host"),
        "PORT": serve.get_default("port"),
        "WEB_CONCURRENCY": serve.get_default("workers"),
        "WARLOG_CONNECTIONS": budget_limit(reserve=0),
        "WARLOG_STREAM_RESERVE": 1000 - budget_limit(concurrency=1000),
        "WARLOG_STREAM_POLL_SECONDS": stream.poll,
        "WARLOG_STREAM_HEARTBEAT_SECONDS": stream.heartbeat,
        "WARLOG_STREAM_MAX_SECONDS": stream.max_life,
        "WARLOG_MAX_UMPIRE_TOKENS": max_umpire_tokens(),
        "WARLOG_CLIENT_TIMEOUT": client_timeout(),
        "REDIS_URL": queue.redis_url(),
        "WARLOG_QUEUE": queue.queue_name(),
        "WARLOG_JOB_TIMEOUT": queue.job_timeout(),
        "WARLOG_JOB_RETRIES": queue.retry_policy().max,
        "WARLOG_JOB_RETRY_INTERVALS": ",".join(map(str, queue.retry_policy().intervals)),
        "WARLOG_NOTIFY_RETRY_INTERVALS": ",".join(map(str, notify.retry_intervals())),
        "WARLOG_ARTIFACT_MAX_AGE_DAYS": jobs.artifact_limits()[0] / 86400,  # in seconds
        "WARLOG_ARTIFACT_MAX_FILES": jobs.artifact_limits()[1],
        "WARLOG_STATISTICS_JOBS": limits.statistics_jobs(),
        "WARLOG_GAME_JOBS": limits.game_jobs(),
        "WARLOG_REPLAY_ON_END": int(jobs.replay_on_end()),
        "WARLOG_DIGEST_HOUR": notify_jobs.digest_hour(),
        "WARLOG_CLOCK_SWEEP_SECONDS": sweep_seconds(),
        "WARLOG_RATE_LIMITS": "on" if limits.switch("WARLOG_RATE_LIMITS") else "off",
        "WARLOG_GAMES_PER_ADDRESS": limits.games_per_address(),
        "WARLOG_GAMES_WINDOW_SECONDS": limits.games_window(),
        **{limit.setting: limit.default for limit in limits.RATE_LIMITS if limit.default is not None},
        "WARLOG_TRUSTED_PROXIES": limits._setting("WARLOG_TRUSTED_PROXIES", 0),
        "WARLOG_SMTP_PORT": smtp.port,
        "WARLOG_SMTP_FROM": smtp.sender,
        "WARLOG_SMTP_TIMEOUT": smtp.timeout,
        "WARLOG_WEBHOOK_TIMEOUT": notify_jobs.webhook_timeout(),
    }


# In the SMTP row of docs/configuration.md, not rows of their own there.
SMTP = {"WARLOG_SMTP_PORT", "WARLOG_SMTP_FROM", "WARLOG_SMTP_TIMEOUT"}


def _same(documented: str | None, value: object) -> bool:
    if documented is None:
        return False
    if isinstance(value, float):
        return float(documented) == value
    return documented == str(value)


@pytest.mark.parametrize("doc", ["configuration.md", "operations.md"])
def test_each_documented_default_is_the_codes(monkeypatch, tmp_path, doc):
    """Every setting has its row in docs/configuration.md; docs/operations.md's rows agree with it."""
    _clean(monkeypatch, tmp_path)
    documented = _defaults(ROOT / "docs" / doc)
    wrong = {name: (documented.get(name), value) for name, value in _code_defaults().items()
             if (name in documented or (doc == "configuration.md" and name not in SMTP))
             and not _same(documented.get(name), value)}
    assert not wrong, f"docs/{doc}'s default, the code's: {wrong}"


def test_the_lock_timeout_on_postgresql_in_configuration_md_is_the_codes():
    from domain.storage import postgres_env

    row = next(line for line in CONFIGURATION_MD.read_text(encoding="utf-8").splitlines()
               if line.startswith("| `WARLOG_LOCK_TIMEOUT`"))
    code = postgres_env("postgresql://u@h:5432/d")["POSTGRES_LOCK_TIMEOUT"]
    assert f"`{code}` on PostgreSQL" in row, (code, row)


def test_the_smtp_defaults_in_configuration_md_are_the_codes():
    row = next(line for line in CONFIGURATION_MD.read_text(encoding="utf-8").splitlines()
               if line.startswith("| `WARLOG_SMTP_HOST`"))
    assert "`WARLOG_SMTP_PORT` (25, or 465 with `WARLOG_SMTP_SSL`)" in row
    assert "`WARLOG_SMTP_FROM` (`warlog@localhost`)" in row and "`WARLOG_SMTP_TIMEOUT` (10 s)" in row
    from workers.notify import SmtpSettings

    plain = SmtpSettings.from_env({"WARLOG_SMTP_HOST": "mail.example.org"})
    implicit_tls = SmtpSettings.from_env({"WARLOG_SMTP_HOST": "mail.example.org", "WARLOG_SMTP_SSL": "1"})
    assert (plain.port, implicit_tls.port, plain.sender, plain.timeout) == (25, 465, "warlog@localhost", 10)


@pytest.mark.parametrize("name", ["WARLOG_DISPATCH_POLL_SECONDS",
                                  "WARLOG_PROJECTOR_POLL_SECONDS"])
def test_a_default_given_in_code_beside_its_name_is_the_documented_one(name):
    """Defaults read where they are used (no function to ask): the literal beside the name."""
    text = "\n".join(p.read_text(encoding="utf-8") for folder in CODE for p in (ROOT / folder).rglob("*.py"))
    code = set(re.findall(rf"\"{name}\"\)?\s*(?:or|,)\s*([0-9.]+)", text))
    assert code and {float(v) for v in code} == {float(_defaults()[name])}, (name, code)
