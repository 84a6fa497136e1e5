"""docker/compose.yaml: valid for Docker Compose v2, and wired to the files and CLIs it names.

`test_compose_config_*` runs the real `docker compose config` (which needs no engine); the CLI
comes from compose_cli.py, which fetches Debian's Compose v2 build where none is installed, and
the test is skipped only where there is neither a Compose v2 nor apt-get to fetch one (a failed
fetch fails the test: a broken recipe must not pass as a skip). The other tests read the
file with PyYAML and run everywhere.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.containers.compose_cli import ComposeFetchFailed, ComposeUnavailable, compose_command
from tests.containers.inventory import COMPOSE_FILE, DOCKER_DIR, DOCKERFILE, REPO

SERVICES = {"mysql", "kafka", "binlog-cdc", "spark-mirror"}


def clean_env() -> dict[str, str]:
    """PATH and HOME only, so `${VAR:-default}` interpolates to the defaults users get."""
    return {k: v for k, v in os.environ.items() if k in ("PATH", "HOME")}


@pytest.fixture(scope="module")
def compose_config() -> dict:
    try:
        cmd = compose_command()
    except ComposeFetchFailed as exc:
        pytest.fail(f"cannot fetch Docker Compose from Debian sid: {exc}")
    except ComposeUnavailable as exc:
        pytest.skip(str(exc))
    result = subprocess.run(cmd + ["-f", str(COMPOSE_FILE), "config", "--format", "json"], capture_output=True,
                            text=True, timeout=120, stdin=subprocess.DEVNULL, env=clean_env())
    assert result.returncode == 0, f"{shlex.join(cmd)} config rejected compose.yaml:\n{result.stderr}"
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def raw() -> dict:
    return yaml.safe_load(COMPOSE_FILE.read_text())


def test_compose_config_accepts_the_file(compose_config: dict) -> None:
    assert set(compose_config["services"]) == SERVICES
    assert compose_config["name"] == "binlog-cdc"


def test_compose_config_bind_mounts_exist_and_builds_point_at_the_repo(compose_config: dict) -> None:
    for name, service in compose_config["services"].items():
        for volume in service.get("volumes", []):
            if volume["type"] == "bind":
                assert Path(volume["source"]).exists(), f"{name}: bind source {volume['source']} is missing"
                assert volume.get("read_only"), f"{name}: configuration is mounted read-only"
        if "build" in service:
            assert Path(service["build"]["context"]) == REPO
            assert (REPO / service["build"]["dockerfile"]) == DOCKERFILE


def test_compose_config_interpolates_defaults(compose_config: dict) -> None:
    kafka_env = compose_config["services"]["kafka"]["environment"]
    assert "HOST://localhost:9092" in kafka_env["KAFKA_ADVERTISED_LISTENERS"]
    assert compose_config["services"]["mysql"]["ports"][0]["published"] == "3306"


def test_services_start_in_dependency_order_on_health(raw: dict) -> None:
    services = raw["services"]
    assert set(services) == SERVICES
    for name in ("mysql", "kafka"):
        assert services[name]["healthcheck"]["test"][0] == "CMD-SHELL"
    deps = services["binlog-cdc"]["depends_on"]
    assert {k: v["condition"] for k, v in deps.items()} == {"mysql": "service_healthy", "kafka": "service_healthy"}
    assert services["binlog-cdc"]["stop_signal"] == "SIGTERM"
    # binlog-cdc's health comes from the image's HEALTHCHECK (its status file)
    assert services["spark-mirror"]["depends_on"]["binlog-cdc"]["condition"] == "service_healthy"


def test_mysql_is_84_with_the_binlog_config_and_init_scripts(raw: dict) -> None:
    mysql = raw["services"]["mysql"]
    assert mysql["image"] == "mysql:8.4"
    mounts = {m.split(":")[1]: m.split(":")[0] for m in mysql["volumes"]}
    assert (DOCKER_DIR / mounts["/etc/mysql/conf.d/binlog-cdc.cnf"]).resolve() == (DOCKER_DIR / "mysql/my.cnf")
    assert (DOCKER_DIR / mounts["/docker-entrypoint-initdb.d"]).is_dir()


def test_kafka_is_apache_kafka_in_kraft_mode(raw: dict) -> None:
    kafka = raw["services"]["kafka"]
    assert kafka["image"].startswith("apache/kafka:")
    env = kafka["environment"]
    assert set(env["KAFKA_PROCESS_ROLES"].split(",")) == {"broker", "controller"}
    assert not any("ZOOKEEPER" in k for k in env), "KRaft: no ZooKeeper"
    # every listener has a protocol, and the in-network one is what the connector is given
    names = {entry.split(":")[0] for entry in env["KAFKA_LISTENER_SECURITY_PROTOCOL_MAP"].split(",")}
    assert {entry.split("://")[0] for entry in env["KAFKA_LISTENERS"].split(",")} <= names
    assert "PLAINTEXT://kafka:9092" in env["KAFKA_ADVERTISED_LISTENERS"]
    connector_env = raw["services"]["binlog-cdc"]["environment"]
    assert connector_env["DEBEZIUM_SINK_KAFKA_PRODUCER_BOOTSTRAP_SERVERS"] == "kafka:9092"
    # KAFKA_CLUSTER_ID must be a base64url UUID (22 chars), or kafka-storage format refuses it
    assert re.fullmatch(r"[A-Za-z0-9_-]{22}", env["CLUSTER_ID"])


def test_connector_uses_the_image_defaults_and_mounts_the_shipped_config(raw: dict) -> None:
    connector = raw["services"]["binlog-cdc"]
    assert "command" not in connector and "entrypoint" not in connector
    assert "./application.properties:/etc/binlog-cdc/application.properties:ro" in connector["volumes"]
    assert any(v.endswith(":/var/lib/binlog-cdc/data") for v in connector["volumes"])


def test_spark_mirror_command_parses_with_the_mirror_cli(raw: dict) -> None:
    spark = raw["services"]["spark-mirror"]
    assert spark["build"]["target"] == "spark"
    assert re.search(r"^FROM \S+ AS spark$", DOCKERFILE.read_text(), re.MULTILINE)
    command = spark["command"]
    assert command[:3] == ["python", "-m", "spark_sink.mirror"]
    mirror = pytest.importorskip("spark_sink.mirror", reason="pyspark is not installed")
    args = mirror.build_parser().parse_args(command[3:])
    assert args.bootstrap_servers == "kafka:9092"
    assert re.fullmatch(args.topics_pattern, "dbserver1.inventory.customers")
    assert not re.fullmatch(args.topics_pattern, "dbserver1"), "the schema change topic is not a table"
    assert args.target.startswith("/lake/") and args.checkpoint.startswith("/lake/")
