"""The tenth attack round: what the nine before missed. A job id no job can have. (The connections that stall after their
head are tests/reliability/test_slow_clients.py's; the cap on a game's jobs is
tests/workers/test_jobs_api.py's.)"""

from __future__ import annotations

import pytest


# ------------------------------------------------- a job id outside rq's alphabet is no job ----
@pytest.mark.parametrize("job_id", ["warlog-a.b", "warlog-a%20b", "warlog-%C3%A9", "warlog-%00", "warlog-a%0Ab"])
def test_a_job_id_no_job_can_have_is_404_not_a_500(sqlite_client, job_id):
    """rq takes letters, digits, '_' and '-' in a job id and raises ValueError for anything else:
    GET /api/v1/jobs/warlog-a.b was a 500 for anyone, no token needed."""
    r = sqlite_client.get(f"/api/v1/jobs/{job_id}")
    assert r.status_code == 404 and r.json["code"] == "not_found", r.get_data(as_text=True)
