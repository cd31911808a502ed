# svc: `make help` lists the targets. Everything runs from the project's own .venv.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
PYTEST_ARGS ?=

.DEFAULT_GOAL := help

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(VENV)/.installed $@

install: $(VENV)/.installed ## create .venv and install the project

install-dev: $(VENV)/.installed-dev ## create .venv and install the project with the dev extras

run: install ## start the whole stack (embedded broker, worker, ingress) on SVC_HOST:SVC_PORT
	$(BIN)/svc up

test: install-dev ## run the test suite (unit, integration, e2e)
	$(BIN)/pytest $(PYTEST_ARGS)

lint: install-dev ## ruff and mypy
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy .

bench: install-dev ## run the benchmarks in bench/ (not part of the tests)
	@for script in bench/bench_*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

ci: lint test ## what CI runs (.ci/run)

clean: ## remove the virtualenv, caches and the local data dir
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .svc

.PHONY: help install install-dev run test lint bench ci clean
