"""The API fixtures (a Flask client on each store) for the read-your-writes tests."""

from tests.api.conftest import api_service, client  # noqa: F401
