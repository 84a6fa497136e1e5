"""The compose set-up's files as tests use them: paths, the sample database, the connector's env."""

from __future__ import annotations

from pathlib import Path

import pymysql

REPO = Path(__file__).resolve().parents[2]
DOCKER_DIR = REPO / "docker"
DOCKERFILE = DOCKER_DIR / "Dockerfile"
COMPOSE_FILE = DOCKER_DIR / "compose.yaml"
APPLICATION_PROPERTIES = DOCKER_DIR / "application.properties"
MY_CNF = DOCKER_DIR / "mysql" / "my.cnf"
INIT_DIR = DOCKER_DIR / "mysql" / "init"
HEALTHCHECK = DOCKER_DIR / "healthcheck.py"
BUILD_STEPS = DOCKER_DIR / "build_steps.sh"

# Rows per table after docker/mysql/init/*.sql (test_init_sql.py checks this against a real server).
INVENTORY_ROWS = {"addresses": 7, "customers": 4, "geom": 3, "orders": 4, "products": 9, "products_on_hand": 9}
# The account docker/mysql/init/00-users.sql creates and docker/application.properties uses.
CONNECTOR_USER, CONNECTOR_PASSWORD = "debezium", "dbz"


def init_scripts() -> list[Path]:
    """The init SQL in the order the MySQL image's entrypoint runs it (sorted by name)."""
    return sorted(INIT_DIR.glob("*.sql"))


def sql_statements(text: str) -> list[str]:
    """Split an init script into statements. The scripts keep `;` at line ends only, never inside
    strings, so splitting there is exact for them (not a general SQL splitter)."""
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("--"))
    return [s.strip() for s in body.split(";\n") if s.strip().rstrip(";")]


def load_inventory(conn: pymysql.Connection) -> None:
    """Run the init scripts through an open root connection, as the image's entrypoint would."""
    with conn.cursor() as cur:
        cur.execute("DROP DATABASE IF EXISTS inventory")
        for script in init_scripts():
            for statement in sql_statements(script.read_text(encoding="utf-8")):
                cur.execute(statement.rstrip(";"))
    conn.commit()
