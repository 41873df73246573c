"""rq's worker command line, after registering the leak test's own rulesets (tests/leak/leaky.py),
so that the replays of their games are made by a real worker as any other game's:
``python -m tests.leak.worker worker --burst --url URL QUEUE``. The worker runs its jobs in its
own process (rq's SimpleWorker): no fork per job, so the many small jobs of the test run fast."""

import sys

from rq.cli import main

from tests.leak import leaky

if __name__ == "__main__":
    leaky.register()
    sys.argv[2:2] = ["--worker-class", "rq.worker.SimpleWorker"]
    sys.exit(main())
