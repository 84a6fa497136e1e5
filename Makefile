# make test   - bootstrap (system packages, .venv, MySQL from sid), then the whole pytest suite
# make demo   - the Debezium tutorial locally: MariaDB + Tansu + binlog-cdc (scripts/demo.py)
# make conformance WORKLOAD=... GOLDEN=...  - one conformance run and its diff, outside pytest
# make faults - kill -9 the connector >= 50 times (both delivery modes, MariaDB + MySQL 9, DB restarts,
#               dump-thread kills, a frozen broker); FAULTS_ARGS='--seed N' replays; last line is JSON
PY          ?= .venv/bin/python
PYTEST_ARGS ?= -ra --durations=15 -p no:cacheprovider
TESTS       ?= tests
WORKLOAD    ?= tests/fixtures/workloads/basic.sql
GOLDEN      ?= tests/fixtures/golden/basic
OUT         ?= out/conformance

FAULTS_ARGS ?=

.PHONY: bootstrap test demo conformance faults

bootstrap:
	scripts/bootstrap.sh

test: bootstrap
	$(PY) -m pytest $(PYTEST_ARGS) $(TESTS)

demo: bootstrap
	$(PY) scripts/demo.py

conformance: bootstrap
	$(PY) tests/conformance/run.py $(WORKLOAD) $(OUT)
	$(PY) tests/conformance/compare.py $(GOLDEN) $(OUT)

faults: bootstrap
	$(PY) bench/faults.py $(FAULTS_ARGS)
