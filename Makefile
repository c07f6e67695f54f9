# Two commands for a fresh machine: `make run` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TEST_DATABASE_URL ?= postgresql://postgres@127.0.0.1:5432/pragmatikos
TEST_REDIS_URL ?= redis://127.0.0.1:6379/1
PORT ?= 8000
# Test processes (pytest-xdist): most of the suite's time is waiting on real workers, servers and
# browsers, so two processes finish sooner even on two cores. TEST_WORKERS=0 runs in this process.
TEST_WORKERS ?= 2
# The installer itself; every package it installs comes from uv.lock.
UV_VERSION := 0.13.9
UV := $(BIN)/uv

.PHONY: run test test-fast lint lock check bench-ingest bench-recompute bench-freshness bench-pages bench-downloads bench-load bench-request-memory clean

$(UV):
	@echo "==> First run: a virtualenv in $(VENV) with the locked packages (uv.lock): a minute or two."
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet uv==$(UV_VERSION)

# The service, the contract and the recorder (editable), with the dev tools, exactly as locked.
# --inexact: keep pip and uv, which are not in the lock. --compile-bytecode: as pip does at install, so that no
# process (a test's server or worker, make run's) compiles what it imports where nothing writes bytecode.
$(VENV)/.installed: pyproject.toml contract/pyproject.toml recorder/pyproject.toml uv.lock | $(UV)
	$(UV) sync --frozen --all-packages --inexact --quiet --compile-bytecode
	touch $@

# Newest versions within pyproject.toml's ranges; commit the new uv.lock with what it changed.
lock: | $(UV)
	$(UV) lock --upgrade

run: $(VENV)/.installed
	@test -f var/pragmatikos.sqlite3 || echo "==> First run: database, demo data and lab imports under var/, a few minutes; later runs start at once."
	@$(BIN)/python manage.py prepare_site
	@echo "==> Serving http://127.0.0.1:$(PORT)/ (make run PORT=... for another port)"
	$(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

lint: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-logo
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} SECRET_KEY=test-key INSTALL_HASH_KEY=test-install-hash-key $(BIN)/mypy .

test: $(VENV)/.installed lint
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} SECRET_KEY=test-key INSTALL_HASH_KEY=test-install-hash-key \
		$(BIN)/python manage.py makemigrations --check --dry-run
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} REDIS_URL=$${REDIS_URL:-$(TEST_REDIS_URL)} SECRET_KEY=test-key INSTALL_HASH_KEY=test-install-hash-key \
		$(BIN)/pytest -n $(TEST_WORKERS) --dist worksteal --cov --cov-report=
	@$(BIN)/coverage html --quiet -d var/coverage
	@echo "==> Line coverage of this process's code (not the servers and workers the tests start): $$($(BIN)/coverage report --format=total)% (var/coverage/index.html)"

# The pure parts alone: scoring, the contract and the recorder, on the embedded default (no PostgreSQL,
# Redis or worker), two processes at once.
test-fast: $(VENV)/.installed
	env -u DATABASE_URL -u REDIS_URL SECRET_KEY=test-key INSTALL_HASH_KEY=test-install-hash-key \
		$(BIN)/pytest tests/scoring tests/ingest/test_contract.py tests/recorder \
		--ignore=tests/recorder/test_end_to_end.py -n 2 -q

bench-ingest: $(VENV)/.installed
	SECRET_KEY=bench-key INSTALL_HASH_KEY=bench-install-hash-key DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(BIN)/python bench/ingest.py

bench-recompute: $(VENV)/.installed
	SECRET_KEY=bench-key INSTALL_HASH_KEY=bench-install-hash-key DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(BIN)/python bench/recompute.py

bench-freshness: $(VENV)/.installed
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} REDIS_URL=$${REDIS_URL:-$(TEST_REDIS_URL)} $(BIN)/python bench/freshness.py

bench-pages: $(VENV)/.installed
	SECRET_KEY=bench-key INSTALL_HASH_KEY=bench-install-hash-key DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(BIN)/python bench/pages.py

bench-downloads: $(VENV)/.installed
	SECRET_KEY=bench-key INSTALL_HASH_KEY=bench-install-hash-key DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(BIN)/python bench/downloads.py

bench-load: $(VENV)/.installed
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(BIN)/python bench/load.py

bench-request-memory: $(VENV)/.installed
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(BIN)/python bench/request_memory.py

clean:
	rm -rf $(VENV) var staticfiles
