# Two commands on a fresh machine: `make run` and `make test`. Each sets up .venv first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test setup bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)

# Until the service exists, the main job replays the bundled example through the law engine.
run: $(STAMP)
	$(BIN)/bridgetable replay bridgetable/examples/

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python bench/replay_corpus.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
