"""docker/ agrees with the connector's real CLI, configuration loader and packaging (no Docker needed)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import dockerfile
import pytest
import yaml

from connector.config import load_config
from connector.config.fields import is_known
from connector.config.loaders import env_to_properties
from connector.config.settings import HISTORY_KAFKA, OFFSETS_FILE
from tests.support.connector_process import default_connector_cmd
from tests.containers.inventory import (APPLICATION_PROPERTIES, BUILD_STEPS, COMPOSE_FILE, CONNECTOR_PASSWORD,
                                        CONNECTOR_USER, DOCKERFILE, HEALTHCHECK, INIT_DIR, MY_CNF, REPO)
from connector.transforms.config import transform_settings
from tests.support.waiting import PROCESS_BOUND_S


@dataclass
class Stage:
    name: str
    commands: list[dockerfile.Command] = field(default_factory=list)

    def args(self, instruction: str) -> list[dockerfile.Command]:
        return [c for c in self.commands if c.cmd.upper() == instruction.upper()]


def dockerfile_stages() -> dict[str, Stage]:
    """The Dockerfile's stages by name, parsed by BuildKit's own parser (the `dockerfile` package)."""
    stages: dict[str, Stage] = {}
    current = None
    for command in dockerfile.parse_file(str(DOCKERFILE)):
        if command.cmd.upper() == "FROM":
            value = command.value
            current = Stage(value[2] if len(value) == 3 and value[1].upper() == "AS" else f"stage{len(stages)}")
            stages[current.name] = current
        elif current is not None:
            current.commands.append(command)
    return stages


def exec_form(command: dockerfile.Command) -> list[str]:
    """The arguments of a CMD/ENTRYPOINT/HEALTHCHECK in exec (JSON) form."""
    assert command.json, f"{command.original}: use the exec form, so signals reach the process"
    return list(command.value[1:] if command.cmd.upper() == "HEALTHCHECK" else command.value)


def copy_sources(stage: Stage) -> list[str]:
    """COPY sources from the build context (not from other stages)."""
    return [src for c in stage.args("COPY") if not any(f.startswith("--from") for f in c.flags) for src in c.value[:-1]]


@pytest.fixture(scope="module")
def stages() -> dict[str, Stage]:
    return dockerfile_stages()


@pytest.fixture(scope="module")
def runtime(stages: dict[str, Stage]) -> Stage:
    last = list(stages.values())[-1]
    assert last.name == "runtime", "the connector image must be the default (last) target"
    return last


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE_FILE.read_text())


def healthcheck_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("binlog_cdc_docker_healthcheck", HEALTHCHECK)
    module = importlib.util.module_from_spec(spec)
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True  # no __pycache__ in docker/
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = saved
    return module


def resolve_defaults(value: object) -> str:
    """Compose interpolation for the `${VAR:-default}` form used in compose.yaml, with VAR unset."""
    return re.sub(r"\$\{[A-Z0-9_]+:-([^}]*)\}", r"\1", str(value))


# ---- the Dockerfile against the repository and build_steps.sh

def test_builder_copies_the_packages_pyproject_declares(stages: dict[str, Stage]) -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    packages = {p.rstrip("*") for p in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]}
    copied = set(copy_sources(stages["builder"]))
    assert copied == packages | {"pyproject.toml"}


def test_build_steps_script_copies_what_the_builder_copies(stages: dict[str, Stage]) -> None:
    match = re.search(r"^context=\(([^)]*)\)", BUILD_STEPS.read_text(), re.MULTILINE)
    assert match, "build_steps.sh must list its build context as context=(...)"
    assert match.group(1).split() == copy_sources(stages["builder"])


def test_every_copy_source_exists(stages: dict[str, Stage]) -> None:
    for stage in stages.values():
        for source in copy_sources(stage):
            assert (REPO / source).exists(), f"stage {stage.name}: COPY {source} names a missing path"


def test_runtime_image_runs_the_cli_as_a_non_root_user(runtime: Stage) -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    entrypoint = exec_form(runtime.args("ENTRYPOINT")[0])
    assert entrypoint == ["binlog-cdc"] and "binlog-cdc" in pyproject["project"]["scripts"]
    user = runtime.args("USER")[-1].value[0]
    assert user.split(":")[0].isdigit() and int(user.split(":")[0]) != 0, "a numeric, non-root uid"
    assert [c.value[0] for c in runtime.args("STOPSIGNAL")] == ["SIGTERM"]
    runs = " ".join(c.value[0] for c in runtime.args("RUN"))
    assert "apt-get install" not in runs and "gcc" not in runs, "no build tools at runtime"


def test_cmd_status_file_healthcheck_and_volume_agree(runtime: Stage) -> None:
    cmd = exec_form(runtime.args("CMD")[-1])
    assert cmd[:2] == ["run", "/etc/binlog-cdc/application.properties"] and cmd[2] == "--status-file"
    status_file = cmd[3]
    health = exec_form(runtime.args("HEALTHCHECK")[-1])
    assert health[1:] == ["/opt/binlog-cdc/healthcheck.py", status_file]
    workdir = runtime.args("WORKDIR")[-1].value[0]
    assert Path(status_file).parent == Path(workdir), "the status file sits in the user's own working directory"
    # Debezium Server's relative offsets file must land in the declared volume.
    offsets = load_config(APPLICATION_PROPERTIES, environ={}).settings(transform_settings).offsets.file_filename
    assert str(Path(workdir) / Path(offsets).parent) in [v for c in runtime.args("VOLUME") for v in c.value]


def test_the_cli_accepts_the_image_command() -> None:
    if importlib.util.find_spec("connector.cli") is None:
        pytest.skip("connector/cli.py does not exist yet: the image's ENTRYPOINT cannot be checked")
    exe = default_connector_cmd()[0]
    top = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=PROCESS_BOUND_S)
    assert top.returncode == 0, top.stderr
    run = subprocess.run([exe, "run", "--help"], capture_output=True, text=True, timeout=PROCESS_BOUND_S)
    assert run.returncode == 0 and "--status-file" in run.stdout, run.stdout + run.stderr


# ---- the configuration the image ships and compose passes

def test_application_properties_is_valid_debezium_server_configuration() -> None:
    loaded = load_config(APPLICATION_PROPERTIES, environ={})
    assert loaded.warnings == []
    settings = loaded.settings(transform_settings)
    assert (settings.database.hostname, settings.database.port) == ("mysql", 3306)
    assert (settings.database.user, settings.database.password.reveal()) == (CONNECTOR_USER, CONNECTOR_PASSWORD)
    assert settings.topics.prefix == "dbserver1"
    assert settings.kafka.bootstrap_servers() == "kafka:9092"
    assert (settings.offsets.store, settings.offsets.file_filename) == (OFFSETS_FILE, "data/offsets.dat")
    assert settings.history.store == HISTORY_KAFKA and settings.history.kafka_topic


def test_compose_environment_overrides_the_file_by_debezium_server_names(compose: dict) -> None:
    env = {k: resolve_defaults(v) for k, v in compose["services"]["binlog-cdc"]["environment"].items()}
    assert env and all(k.startswith("DEBEZIUM_") for k in env)
    # Each variable names a real property (no "unknown property" warnings) ...
    assert load_config(APPLICATION_PROPERTIES, environ=env).warnings == []
    for prop in env_to_properties(env):
        name = prop.removeprefix("debezium.source.")
        assert prop.startswith("debezium.sink.kafka.producer.") or is_known(name), prop
    # ... and wins over the file: change every value and see each change arrive.
    changed = {k: ("13599" if k.endswith("_PORT") else "override-" + v) for k, v in env.items()}
    settings = load_config(APPLICATION_PROPERTIES, environ=changed).settings(transform_settings)
    assert settings.database.hostname == changed["DEBEZIUM_SOURCE_DATABASE_HOSTNAME"]
    assert settings.database.password.reveal() == changed["DEBEZIUM_SOURCE_DATABASE_PASSWORD"]
    assert settings.kafka.bootstrap_servers() == changed["DEBEZIUM_SINK_KAFKA_PRODUCER_BOOTSTRAP_SERVERS"]
    assert settings.history.kafka_bootstrap_servers == \
        changed["DEBEZIUM_SOURCE_SCHEMA_HISTORY_INTERNAL_KAFKA_BOOTSTRAP_SERVERS"]


def test_database_account_and_server_ids_are_consistent(compose: dict) -> None:
    users_sql = (INIT_DIR / "00-users.sql").read_text()
    assert f"'{CONNECTOR_USER}'@'%' IDENTIFIED BY '{CONNECTOR_PASSWORD}'" in users_sql
    for grant in ("SELECT", "RELOAD", "SHOW DATABASES", "REPLICATION SLAVE", "REPLICATION CLIENT", "LOCK TABLES"):
        assert grant in users_sql
    compose_password = resolve_defaults(compose["services"]["binlog-cdc"]["environment"]
                                        ["DEBEZIUM_SOURCE_DATABASE_PASSWORD"])
    assert compose_password == CONNECTOR_PASSWORD
    server_id = re.search(r"^server-id\s*=\s*(\d+)", MY_CNF.read_text(), re.MULTILINE)
    assert server_id, "my.cnf sets server-id"
    connector_id = load_config(APPLICATION_PROPERTIES, environ={}).settings(transform_settings).database.server_id
    assert int(server_id.group(1)) != connector_id, "the connector's replica id must differ from the server's"


# ---- the HEALTHCHECK script

@pytest.mark.parametrize(("content", "age_s", "healthy"), [
    ({"phase": "streaming"}, 1, True),
    ({"phase": "snapshot"}, 1, True),
    ({"phase": "stopped"}, 1, False),
    ({"phase": "streaming"}, 600, False),
    ("not json", 1, False),
    (None, 0, False),  # no file
])
def test_healthcheck(tmp_path: Path, content: object, age_s: float, healthy: bool) -> None:
    status = tmp_path / "status.json"
    now = time.time()
    if content is not None:
        text = content if isinstance(content, str) else json.dumps(dict(content, updated_at=now - age_s))
        status.write_text(text)
    reason = healthcheck_module().check(status, 60.0, now)
    assert (reason is None) == healthy, reason
    exit_status = subprocess.run([sys.executable, str(HEALTHCHECK), str(status)], capture_output=True).returncode
    assert exit_status == (0 if healthy else 1)


def test_dockerignore_sends_exactly_what_the_dockerfile_copies(stages: dict[str, Stage]) -> None:
    lines = [line.strip() for line in (DOCKERFILE.parent / "Dockerfile.dockerignore").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert lines[0] == "*", "exclude everything, then include what is copied"
    included = {line[1:] for line in lines if line.startswith("!")}
    copied = {source for stage in stages.values() for source in copy_sources(stage)}
    assert included == copied
