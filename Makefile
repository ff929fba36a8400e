# Two commands on a fresh machine: `make run` and `make test`. Each sets up .venv first and says what it does.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: run test check lint types setup bench clean browsers

# Pure Python: installing is creating the virtual environment and fetching the dependencies (pip prints each).
# `make run` needs only the service's; `make test` adds the test tools (pytest, Playwright, mypy …).
$(BIN)/python:
	@echo "==> creating the virtual environment in $(VENV) (first run only)"
	$(PYTHON) -m venv $(VENV)
	@echo "==> upgrading pip"
	$(BIN)/pip install --progress-bar off --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	@echo "==> installing bridgetable and what it runs on (first run only)"
	$(BIN)/pip install --progress-bar off -e .
	touch $(STAMP)
	@echo "==> installed"

$(TEST_STAMP): $(STAMP)
	@echo "==> installing the test tools (first run only)"
	$(BIN)/pip install --progress-bar off -e '.[test]'
	touch $(TEST_STAMP)

setup: $(TEST_STAMP)

# The main job: the service with four simulated tables on the SQLite default (bridgetable.db); it prints
# the director console's URL (with the address the tablets in the room use), its token and the table cards'
# page. It listens on every network of the machine (HOST=0.0.0.0) so the tablets reach it; make run
# HOST=127.0.0.1 keeps it to this machine. When bridgetable.db holds an earlier session it asks whether to
# resume it; SESSION=resume or SESSION=new answers in advance (new moves the old file aside, never deletes it).
# SIMULATE, HOST, PORT and SESSION can be overridden: make run PORT=9000 SIMULATE=0 SESSION=new
# The director's token is printed on a terminal only; SHOW_TOKEN=1 prints it when the output goes elsewhere
# (make run SHOW_TOKEN=1 > evening.log).
# DATACONNECTOR=1 also opens the Bridgemate Data Connector endpoint for the club's scoring program on DC_PORT
# (docs/data-connector.md) and prints its address, club id and licence key; the simulated tables then wait for
# the scoring program's event; a club's real tables play it, so no simulated ones unless SIMULATE says so.
ifneq ($(DATACONNECTOR),)
SIMULATE ?= 0
endif
SIMULATE ?= 4
HOST     ?= 0.0.0.0
PORT     ?= 8000
SESSION  ?=
SHOW_TOKEN ?=
DATACONNECTOR ?=
DC_PORT  ?= 5079
run: $(STAMP)
	@echo "==> starting the service with $(SIMULATE) simulated tables on port $(PORT) of $(if $(filter 0.0.0.0 ::,$(HOST)),every network of this machine (only this machine: make run HOST=127.0.0.1),$(HOST))$(if $(DATACONNECTOR), and the Data Connector on port $(DC_PORT))"
	$(BIN)/bridgetable serve --simulate $(SIMULATE) --host $(HOST) --port $(PORT) $(if $(SESSION),--$(SESSION)) $(if $(SHOW_TOKEN),--show-token) $(if $(DATACONNECTOR),--dataconnector --dc-port $(DC_PORT))

# The headless-browser tests drive Debian's old headless shell of Chromium, the same Blink without the desktop
# browser around it (a browser context with its first page costs ~0.1 s of CPU against ~0.9 s with the full
# browser; docs/PERFORMANCE.md). Playwright's own download needs a CDN this machine cannot reach. Installed when
# missing; if it cannot be, the tests fall back to Debian's full chromium, and skip with the reason without either.
CHROMIUM ?= /usr/bin/chromium-headless-shell
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# The pages speak Chinese too: a CJK font (WenQuanYi Micro Hei, 5 MB) so the screenshots show its characters.
CJK_FONT := /usr/share/fonts/truetype/wqy/wqy-microhei.ttc
browsers:
	@test -x $(CHROMIUM) || { echo "==> installing Debian's headless Chromium for the browser tests"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium-headless-shell; } \
	  || echo "note: chromium-headless-shell could not be installed; the browser tests use /usr/bin/chromium if it is there, else skip"
	@test -f $(CJK_FONT) || { echo "==> installing a Chinese font for the pages' screenshots"; \
	  $(SUDO) apt-get install -y -qq fonts-wqy-microhei || echo "note: no Chinese font; zh-Hant screenshots show boxes"; }

# Lint (ruff) and types (mypy: strict on table/ and firmware_host/, pyproject.toml says where)
lint: $(TEST_STAMP)
	@echo "==> ruff"
	$(BIN)/ruff check .
types: $(TEST_STAMP)
	@echo "==> mypy"
	$(BIN)/mypy
check: lint types

# pytest's options come from pyproject.toml (four pytest-xdist workers, the per-test timeout); more go in PYTEST_ADDOPTS, as .ci/run
# does for --durations=40: make test PYTEST_ADDOPTS="-x -k avr"
# A machine whose environment switches bytecode caching off (PYTHONDONTWRITEBYTECODE=1, as this project's CI
# machine does) would have every process of the suite (four workers, each test's server, each CLI run) compile
# the project and rewrite the tests' assertions from source again: 8 of the 11 CPU s a worker spends collecting,
# 0.3 s of each server's start (docs/PERFORMANCE.md). The suite writes them (__pycache__/ is git-ignored).
test: check browsers firmware-deps
	@echo "==> pytest (the whole suite; BRIDGETABLE_CORPUS adds the real-data tests)$${PYTEST_ADDOPTS:+ with PYTEST_ADDOPTS=$$PYTEST_ADDOPTS}"
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest

bench: $(TEST_STAMP)
	$(BIN)/python bench/replay_corpus.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache .ruff_cache build

# The seat-unit firmware (firmware/, docs/hardware.md): its toolchain (Debian packages, installed when missing)
# and its build; tests/firmware/ runs it on the emulated chip. make test needs firmware-deps first.
FIRMWARE_APT := gcc-avr avr-libc binutils-avr simavr libsimavr-dev libsimavrparts1 libelf-dev
.PHONY: firmware firmware-deps
firmware-deps:
	@command -v avr-gcc >/dev/null && test -f /usr/include/simavr/sim_avr.h || { \
	  echo "==> installing the AVR toolchain and simavr for the firmware tests"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $(FIRMWARE_APT); }
firmware: firmware-deps
	$(MAKE) -C firmware
