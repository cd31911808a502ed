# svc: `make help` lists the targets. Everything runs from the project's own .venv.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
PYTEST_ARGS ?=
# Test processes: most integration tests wait on a broker, a worker or a server rather than compute, so more
# processes than cores finish sooner (on 2 cores, 8 ran the suite fastest: 6 and 10 were slower). Each process
# has its own embedded broker.
TEST_WORKERS ?= 8
# Bytecode caches on, whatever the environment says: every test process and every process a test starts
# would otherwise compile the project's modules (and pytest rewrite every test module) from source again.
export PYTHONDONTWRITEBYTECODE :=

.DEFAULT_GOAL := help

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml clients/python/pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]' -e clients/python
	touch $(VENV)/.installed $@

install: $(VENV)/.installed ## create .venv and install the project

install-dev: $(VENV)/.installed-dev ## create .venv and install the project with the dev extras

run: install ## start the whole stack (embedded broker, worker, ingress) on SVC_HOST:SVC_PORT
	$(BIN)/svc up

test: install-dev ## run the whole test suite (unit, integration, e2e) in TEST_WORKERS processes
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

test-unit: install-dev ## pure logic only: no broker, no subprocess, no server (well under a minute)
	$(BIN)/pytest tests/unit $(PYTEST_ARGS)

test-integration: install-dev ## the tests with a real broker, DB, warehouse and HTTP (integration, e2e)
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadgroup tests/integration tests/e2e $(PYTEST_ARGS)

test-pg: install-dev ## the integration and e2e tiers again, on a real PostgreSQL 18 (a database per test)
	SVC_TEST_DATABASE=postgresql $(BIN)/pytest -n $(TEST_WORKERS) --dist loadgroup tests/integration tests/e2e $(PYTEST_ARGS)

test-cpu: install-dev ## the whole suite, then the CPU each test module cost (its processes included), most first
	rm -rf .svc/test-cpu
	SVC_TEST_CPU_REPORT=.svc/test-cpu $(BIN)/pytest -n $(TEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)
	$(BIN)/python -m tests.fixtures.cpu_report .svc/test-cpu 40

coverage: install-dev ## the whole suite with line coverage of the service's packages
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadgroup --cov=svc --cov=schemas --cov=core --cov=ingress \
		--cov=streams --cov=sinks --cov-report=term:skip-covered $(PYTEST_ARGS)

openapi: install ## write the ingress's OpenAPI document to docs/openapi.json (a test fails when it drifts)
	$(BIN)/svc openapi > docs/openapi.json

docs: install ## write docs/configuration.md from schemas/settings.py (a test fails when it drifts)
	$(BIN)/python -m svc.config_reference > docs/configuration.md

client: install-dev ## regenerate the Python client in clients/python/ from docs/openapi.json (a test fails when it drifts)
	$(BIN)/python clients/python/generate.py

lint: install-dev ## ruff, mypy and the import contracts of docs/architecture.md
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy .
	$(BIN)/lint-imports

screenshots: install-dev ## the console's pages as PNGs in docs/console/, in the OS's Chromium (docs/console.md)
	SVC_CONSOLE_SCREENSHOTS=docs/console $(BIN)/pytest -m browser tests/e2e/console $(PYTEST_ARGS)

bench: install-dev ## run the benchmarks in bench/ (not part of the tests)
	@for script in bench/bench_*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

ci: lint test ## what CI runs (.ci/run)

clean: ## remove the virtualenv, caches and the local data dir
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .svc

.PHONY: help install install-dev run test test-unit test-integration test-cpu coverage openapi docs client lint screenshots bench ci clean
