# The two commands of the README. Both work on a fresh machine that has only
# Python 3.11 and make: they create .venv on first use.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean-venv

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m xlapy.demo

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests

test: $(STAMP) lint
	$(PY) -m pytest

clean-venv:
	rm -rf $(VENV)
