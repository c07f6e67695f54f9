# Two commands for a fresh machine: `make run` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TEST_DATABASE_URL ?= postgresql://postgres@127.0.0.1:5432/pragmatikos
TEST_REDIS_URL ?= redis://127.0.0.1:6379/1

.PHONY: run test lint check bench-ingest bench-recompute bench-pages bench-downloads bench-load clean

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml recorder/pyproject.toml | $(BIN)/activate
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]' -e ./recorder
	touch $@

run: $(VENV)/.installed
	$(BIN)/python manage.py migrate --no-input
	$(BIN)/python manage.py load_demo --if-empty
	$(BIN)/python manage.py import_lab lab/data/akita --format akita
	$(BIN)/python manage.py import_lab lab/data/aider_runs.jsonl --format aider
	$(BIN)/python manage.py import_lab lab/data/swebench_pro_runs.jsonl --format swebench-pro
	$(BIN)/python manage.py runserver 127.0.0.1:8000

lint: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-logo
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} SECRET_KEY=test-key INSTALL_HASH_KEY=test-install-hash-key $(BIN)/mypy .

test: $(VENV)/.installed lint
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} SECRET_KEY=test-key INSTALL_HASH_KEY=test-install-hash-key \
		$(BIN)/python manage.py makemigrations --check --dry-run
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} REDIS_URL=$${REDIS_URL:-$(TEST_REDIS_URL)} SECRET_KEY=test-key INSTALL_HASH_KEY=test-install-hash-key \
		$(BIN)/pytest

bench-ingest: $(VENV)/.installed
	SECRET_KEY=bench-key INSTALL_HASH_KEY=bench-install-hash-key DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(BIN)/python bench/ingest.py

bench-recompute: $(VENV)/.installed
	SECRET_KEY=bench-key INSTALL_HASH_KEY=bench-install-hash-key DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(BIN)/python bench/recompute.py

bench-pages: $(VENV)/.installed
	SECRET_KEY=bench-key INSTALL_HASH_KEY=bench-install-hash-key DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(BIN)/python bench/pages.py

bench-downloads: $(VENV)/.installed
	SECRET_KEY=bench-key INSTALL_HASH_KEY=bench-install-hash-key DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(BIN)/python bench/downloads.py

bench-load: $(VENV)/.installed
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(BIN)/python bench/load.py

clean:
	rm -rf $(VENV) var staticfiles
