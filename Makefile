# Two commands on a fresh machine with Python >= 3.11: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: run test migrate clean bench

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	@touch $(STAMP)

# web (gunicorn), an rq worker, the webhooks' worker, the dispatcher, the projector and, without REDIS_URL, an embedded Redis (workers/stack.py)
run: $(STAMP)
	$(BIN)/python -m workers.stack

test: $(STAMP)
	$(BIN)/python -m pytest

# every benchmark (bench/), writing docs/benchmarks.md; BENCH_ARGS="orders --store sqlite --quick" for one
bench: $(STAMP)
	$(BIN)/python -m bench $(BENCH_ARGS)

migrate: $(STAMP)
	$(BIN)/warlog migrate

clean:
	rm -rf $(VENV) var .pytest_cache .hypothesis
