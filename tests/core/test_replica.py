"""DATABASE_REPLICA_URL: reports and exports read from a real streaming replica, everything else
from the primary. Two PostgreSQL servers of the test's own (initdb, then pg_basebackup -R of the
first: a hot standby streaming its WAL), on free ports, with the machine's PostgreSQL binaries.

The proof that a report reads the replica: replay is paused on the replica, a day is dealt on the
primary, and the report does not see it until replay resumes, while the primary does at once.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.postgres

ROOT = Path(__file__).resolve().parents[2]
PG_BINS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda path: int(path.parent.name))
REPORT = """
import datetime as dt, json
from pit.reports.catalog import REPORTS
from pit.reports.definitions import ReportFilters, report_lines
from pit.shoes.models import Coup
today = dt.date.today()
filters = ReportFilters(date_from=today - dt.timedelta(days=30), date_to=today + dt.timedelta(days=1))
total = [line.values for line in report_lines(REPORTS["table-results"], filters) if line.kind == "total"]
print(json.dumps({"report_coups": sum(t["coups"] for t in total), "primary_coups": Coup.objects.count()}))
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _as_postgres(*command) -> list[str]:
    # PostgreSQL refuses to run as root: CI runs as root, a developer perhaps as themselves.
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else list(command)


def _run(command, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(command, check=True, capture_output=True, text=True, timeout=120, **kwargs)


@pytest.fixture(scope="module")
def servers():
    assert PG_BINS, "no PostgreSQL binaries under /usr/lib/postgresql (apt-get install postgresql)"
    bin_dir = PG_BINS[-1]
    base = Path(tempfile.mkdtemp(prefix="pit-replica-"))
    if os.geteuid() == 0:
        shutil.chown(base, "postgres", "postgres")
    primary, replica = base / "primary", base / "replica"
    ports = {"primary": _free_port(), "replica": _free_port()}
    options = f"-c listen_addresses=127.0.0.1 -k {base} -c fsync=off -c max_wal_senders=4 -c wal_level=replica"
    started = []
    try:
        _run(_as_postgres(bin_dir / "initdb", "-D", primary, "-U", "postgres", "-A", "trust", "--no-sync"))
        _run(
            _as_postgres(
                bin_dir / "pg_ctl",
                "-D",
                primary,
                "-l",
                base / "primary.log",
                "-w",
                "-o",
                f"-p {ports['primary']} {options}",
                "start",
            )
        )
        started.append(primary)
        _run(
            _as_postgres(
                bin_dir / "pg_basebackup",
                "-h",
                "127.0.0.1",
                "-p",
                str(ports["primary"]),
                "-U",
                "postgres",
                "-D",
                replica,
                "-R",
                "-X",
                "stream",
                "--no-sync",
            )
        )
        _run(
            _as_postgres(
                bin_dir / "pg_ctl",
                "-D",
                replica,
                "-l",
                base / "replica.log",
                "-w",
                "-o",
                f"-p {ports['replica']} {options} -c hot_standby=on",
                "start",
            )
        )
        started.append(replica)
        _run(
            [
                bin_dir / "psql",
                "-h",
                "127.0.0.1",
                "-p",
                str(ports["primary"]),
                "-U",
                "postgres",
                "-c",
                "CREATE DATABASE pit",
            ]
        )
        yield {"bin": bin_dir, **ports}
    finally:
        for data in reversed(started):
            subprocess.run(
                _as_postgres(bin_dir / "pg_ctl", "-D", data, "-m", "immediate", "stop"), capture_output=True, timeout=60
            )
        shutil.rmtree(base, ignore_errors=True)


def _sql(servers, which: str, statement: str) -> str:
    return _run(
        [
            servers["bin"] / "psql",
            "-h",
            "127.0.0.1",
            "-p",
            str(servers[which]),
            "-U",
            "postgres",
            "-d",
            "pit",
            "-tAc",
            statement,
        ]
    ).stdout.strip()


def _caught_up(servers) -> None:
    target = _sql(servers, "primary", "SELECT pg_current_wal_lsn()")
    deadline = time.monotonic() + 60
    while _sql(servers, "replica", f"SELECT pg_last_wal_replay_lsn() >= '{target}'::pg_lsn") != "t":
        assert time.monotonic() < deadline, "the replica did not catch up within 60 s"
        time.sleep(0.2)


def _manage(servers, tmp_path, *args) -> str:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "CELERY_", "PIT_", "DJANGO_"))},
        "DJANGO_SETTINGS_MODULE": "pit.settings.local",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:{servers['primary']}/pit",
        "DATABASE_REPLICA_URL": f"postgres://postgres@127.0.0.1:{servers['replica']}/pit",
        "PIT_VAR_DIR": str(tmp_path / "var"),
    }
    return _run([sys.executable, "manage.py", *args], cwd=ROOT, env=env).stdout


def _counts(servers, tmp_path) -> dict:
    return json.loads(_manage(servers, tmp_path, "shell", "-c", REPORT).strip().splitlines()[-1])


def test_reports_read_the_replica_and_everything_else_the_primary(servers, tmp_path):
    _manage(servers, tmp_path, "migrate", "--noinput")
    _manage(servers, tmp_path, "create_paytable", "--preset", "commission_box")
    _manage(
        servers, tmp_path, "create_table", "--code", "BB1", "--game", "big", "--paytable", "commission-box", "--open"
    )
    _manage(servers, tmp_path, "simulate", "--tables", "BB1", "--days", "1", "--seed", "3", "--eager", "--no-progress")
    _caught_up(servers)
    first = _counts(servers, tmp_path)
    assert first["report_coups"] == first["primary_coups"] > 0
    # The replica is a read-only standby: nothing of pit's was ever written to it.
    assert _sql(servers, "replica", "SELECT pg_is_in_recovery()") == "t"

    _sql(servers, "replica", "SELECT pg_wal_replay_pause()")
    _manage(servers, tmp_path, "simulate", "--tables", "BB1", "--days", "1", "--seed", "4", "--eager", "--no-progress")
    paused = _counts(servers, tmp_path)
    assert paused["primary_coups"] > first["primary_coups"]
    assert paused["report_coups"] == first["report_coups"]  # read on the replica, where replay is paused

    _sql(servers, "replica", "SELECT pg_wal_replay_resume()")
    _caught_up(servers)
    resumed = _counts(servers, tmp_path)
    assert resumed["report_coups"] == resumed["primary_coups"] == paused["primary_coups"]
