# make test       - bootstrap (system packages, .venv, MySQL from sid), then the whole pytest suite, in parallel
# make test-fast  - the inner loop: unit tests + a handful of conformance goldens (< 5 min)
# make demo       - the Debezium tutorial locally: MariaDB + Tansu + binlog-cdc (scripts/demo.py)
# make conformance WORKLOAD=... GOLDEN=...  - one conformance run and its diff, outside pytest
# make faults - kill -9 the connector >= 50 times (both delivery modes, MariaDB + MySQL 9, DB restarts,
#               dump-thread kills, a frozen broker) and HA failovers (kill -9 / SIGSTOP of the active instance);
#               FAULTS_ARGS='--seed N' replays; last line is JSON
PY          ?= .venv/bin/python
PYTEST_ARGS ?= -ra --durations=15 -p no:cacheprovider
# Workers: the tests mostly wait on servers, so more workers than the 2 cores win (docs/TESTING.md has the
# figures). loadgroup keeps each xdist_group (the Spark tests) on one worker, so one Spark JVM starts.
WORKERS     ?= 4
XDIST       ?= -n $(WORKERS) --dist loadgroup
TESTS       ?= tests
# test-fast's goldens: MariaDB streaming, MySQL streaming with GTIDs, a snapshot, every column type, DDL
FAST_GOLDENS ?= basic basic-mysql snapshot types ddl_heavy
FAST_TESTS  ?= tests/unit tests/conformance/test_compare.py \
               $(foreach g,$(FAST_GOLDENS),tests/conformance/test_conformance.py::test_conformance[$(g)])
WORKLOAD    ?= tests/fixtures/workloads/basic.sql
GOLDEN      ?= tests/fixtures/golden/basic
OUT         ?= out/conformance

FAULTS_ARGS ?=

# Hundreds of connector processes start during a test run: with PYTHONDONTWRITEBYTECODE set (some CI images set
# it) each one compiles every module of the project again, ~0.3 s of CPU per start.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: bootstrap test test-fast demo conformance faults

bootstrap:
	scripts/bootstrap.sh

test: bootstrap
	$(PY) -m pytest $(PYTEST_ARGS) $(XDIST) $(TESTS)

test-fast: bootstrap
	$(PY) -m pytest $(PYTEST_ARGS) $(XDIST) $(FAST_TESTS)

demo: bootstrap
	$(PY) scripts/demo.py

conformance: bootstrap
	$(PY) tests/conformance/run.py $(WORKLOAD) $(OUT)
	$(PY) tests/conformance/compare.py $(GOLDEN) $(OUT)

faults: bootstrap
	$(PY) bench/faults.py $(FAULTS_ARGS)
