# Two commands on a fresh machine: `make run` and `make test`. Each sets up .venv first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test setup bench clean browsers

# an edit to a module setup.py compiles rebuilds it (a stale build would run instead of the source); the
# list lives in table/compiled.py, so any edit under table/ counts
COMPILED_SRC := $(wildcard table/*.py table/formats/*.py)

$(STAMP): pyproject.toml setup.py $(COMPILED_SRC)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)

# The main job: the service with four simulated tables on the SQLite default (bridgetable.db); it prints
# the director console's URL and token. SIMULATE, HOST and PORT can be overridden: make run PORT=9000
SIMULATE ?= 4
HOST     ?= 127.0.0.1
PORT     ?= 8000
run: $(STAMP)
	$(BIN)/bridgetable serve --simulate $(SIMULATE) --host $(HOST) --port $(PORT)

# The headless-browser test drives Debian's Chromium (Playwright's own download needs a CDN this machine
# cannot reach). Installed when missing; if it cannot be, tests/test_browser.py skips with the reason.
CHROMIUM ?= /usr/bin/chromium
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browsers:
	@test -x $(CHROMIUM) || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium; } \
	  || echo "note: chromium could not be installed; the browser test will skip"

test: $(STAMP) browsers
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python bench/replay_corpus.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build
	find table -name '*.so' -delete -o -name '*.c' -delete
