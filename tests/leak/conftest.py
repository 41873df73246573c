"""The leak test's fixtures: the real Redis of the worker tests (tests/workers/conftest.py)."""

from tests.workers import conftest as workers

redis_url = workers.redis_url
