"""``storage.postgres_dsn``: the one place a libpq connection string is made from a database URL
(the tests, the benchmarks and the seed watch connect with it beside the service's pool)."""

from __future__ import annotations

from psycopg.conninfo import conninfo_to_dict

from domain.storage import postgres_dsn, postgres_env


def test_the_url_parts_reach_libpq_as_they_were_written():
    url = "postgresql://warlog:p%40ss%20w'o\\rd@db.example:6543/games?schema=s1"
    parsed = conninfo_to_dict(postgres_dsn(postgres_env(url)))
    assert parsed == {"host": "db.example", "port": "6543", "user": "warlog", "dbname": "games",
                      "password": "p@ss w'o\\rd"}


def test_no_password_means_no_password_key():
    parsed = conninfo_to_dict(postgres_dsn(postgres_env("postgresql://postgres@127.0.0.1:5432/test")))
    assert parsed == {"host": "127.0.0.1", "port": "5432", "user": "postgres", "dbname": "test"}
