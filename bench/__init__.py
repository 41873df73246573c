"""Benchmarks: ``python -m bench [NAME ...] [--store sqlite|postgres|all] [--quick]`` (docs/benchmarks.md).

Every figure is measured against a baseline taken in the same run on the same machine, and
reported as a ratio plus the absolute numbers. Nothing here is a test: tests/bench/ only runs the
quick mode to prove the code works.
"""
