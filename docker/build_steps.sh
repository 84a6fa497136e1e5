#!/usr/bin/env bash
# The build steps of docker/Dockerfile (builder + runtime stages), run as a plain script, for
# machines and CI jobs without a Docker engine:
#
#   docker/build_steps.sh [WORKDIR]        # default: a fresh temporary directory, removed at the end
#
# 1. copy exactly what the Dockerfile COPYs into WORKDIR/src
# 2. build wheels for the project and all its dependencies  (pip wheel --wheel-dir WORKDIR/wheels)
# 3. install them into a fresh venv from those wheels only  (--no-index), then drop pip/setuptools
# 4. run the image's checks with that venv: `binlog-cdc --help` (as the builder stage does) and the
#    health check script against a fresh and a stale status file (as HEALTHCHECK does)
#
# Needs python >= 3.11 ($PYTHON, default python3) and access to PyPI (or a pip cache) for step 2.
# Prints "build steps OK" at the end; any failing step stops the script with a non-zero status.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
python="${PYTHON:-python3}"

if [[ $# -ge 1 ]]; then
    work="$1"
    mkdir -p "$work"
else
    work="$(mktemp -d "${TMPDIR:-/tmp}/binlog-cdc-build.XXXXXX")"
    trap 'rm -rf "$work"' EXIT
fi
work="$(cd "$work" && pwd)"

step() { printf '\n==> %s\n' "$*"; }

"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "python >= 3.11 needed, found " + sys.version)'

step "1. copy the build context (the Dockerfile's COPY lines)"
# Keep this list equal to the builder stage's COPY sources (tests/containers/test_docker_files.py checks it).
context=(pyproject.toml connector schema_history snapshot spark_sink)
rm -rf "$work/src" "$work/wheels" "$work/venv"
mkdir -p "$work/src"
for item in "${context[@]}"; do
    if [[ ! -e "$repo/$item" ]]; then
        echo "missing $repo/$item: the Dockerfile COPYs it, so docker build would fail the same way" >&2
        exit 1
    fi
    cp -R "$repo/$item" "$work/src/"
done
find "$work/src" -name __pycache__ -type d -prune -exec rm -rf {} +

step "2. build wheels for binlog-cdc and its dependencies"
PIP_DISABLE_PIP_VERSION_CHECK=1 "$python" -m pip wheel --quiet --wheel-dir "$work/wheels" "$work/src"
ls "$work/wheels"

step "3. install from those wheels only into a fresh venv, then remove pip and setuptools"
"$python" -m venv "$work/venv"
PIP_DISABLE_PIP_VERSION_CHECK=1 "$work/venv/bin/pip" install --quiet --no-index --find-links "$work/wheels" binlog-cdc
"$work/venv/bin/pip" uninstall --quiet --yes pip setuptools
if [[ -e "$work/venv/bin/pip" ]]; then
    echo "pip is still in the runtime venv" >&2
    exit 1
fi

step "4a. binlog-cdc --help (the builder stage's smoke test)"
"$work/venv/bin/binlog-cdc" --help

step "4b. the HEALTHCHECK script with the runtime's python"
status="$work/status.json"
printf '{"phase": "streaming", "binlog_file": "mysql-bin.000003", "binlog_pos": 157}\n' > "$status"
"$work/venv/bin/python" "$here/healthcheck.py" "$status"
touch -d '10 minutes ago' "$status"
if "$work/venv/bin/python" "$here/healthcheck.py" "$status"; then
    echo "the health check accepted a status file 10 minutes old" >&2
    exit 1
fi

step "build steps OK"
