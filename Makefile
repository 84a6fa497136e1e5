# make test   - bootstrap (system packages, .venv, MySQL from sid), then the whole pytest suite
# make demo   - the Debezium tutorial locally: MariaDB + Tansu + binlog-cdc (scripts/demo.py)
# make conformance WORKLOAD=... GOLDEN=...  - one conformance run and its diff, outside pytest
PY          ?= .venv/bin/python
PYTEST_ARGS ?= -ra --durations=15 -p no:cacheprovider
TESTS       ?= tests
WORKLOAD    ?= tests/fixtures/workloads/basic.sql
GOLDEN      ?= tests/fixtures/golden/basic
OUT         ?= out/conformance

.PHONY: bootstrap test demo conformance

bootstrap:
	scripts/bootstrap.sh

test: bootstrap
	$(PY) -m pytest $(PYTEST_ARGS) $(TESTS)

demo: bootstrap
	$(PY) scripts/demo.py

conformance: bootstrap
	$(PY) tests/conformance/run.py $(WORKLOAD) $(OUT)
	$(PY) tests/conformance/compare.py $(GOLDEN) $(OUT)
