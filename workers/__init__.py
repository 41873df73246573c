"""rq jobs: thin wrappers over pure functions (replays, statistics, notifications)."""
