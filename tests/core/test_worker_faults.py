"""Workers that fail, with real processes on the embedded default (a SQLite file, the filesystem
broker, `celery -A pit worker`, `manage.py runpit`): a killed worker makes /healthz 503 naming its
queue; a malformed message file is parked and the worker consumes on; runpit restarts a worker
that dies, and says so; the transport writes whole messages and parks what holds none."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from kombu import Connection

from tests.jobs.processes import wait_for

ROOT = Path(__file__).resolve().parents[2]
HEALTH = (
    "import json, django; django.setup(); from django.test import Client; "
    "r = Client().get('/healthz', HTTP_HOST='127.0.0.1'); print(json.dumps([r.status_code, r.json()]))"
)
SEND = (
    "import django; django.setup(); from pit.celery import app; app.send_task('core.outbox_dispatch', queue='urgent')"
)


@pytest.fixture(scope="module")
def migrated(tmp_path_factory) -> Path:
    """A SQLite database of the embedded default, migrated once for the module (copied per test)."""
    folder = tmp_path_factory.mktemp("migrated")
    subprocess.run(  # noqa: S603
        [sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=_env(folder), check=True, timeout=300
    )
    return folder / "pit.sqlite3"


def _env(var_dir: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env.update(
        DJANGO_SETTINGS_MODULE="pit.settings.local",
        PIT_VAR_DIR=str(var_dir),
        PYTHONUNBUFFERED="1",
        PIT_WORKER_HEARTBEAT_SECONDS="1",
        PIT_HEALTH_WORKER_STALE_SECONDS="4",
    )
    return env


@pytest.fixture
def pit_var(migrated, tmp_path) -> Path:
    var = tmp_path / "var"
    var.mkdir()
    shutil.copy(migrated, var / "pit.sqlite3")
    return var


def _health(var: Path) -> tuple[int, dict]:
    shown = subprocess.run(  # noqa: S603
        [sys.executable, "-c", HEALTH], cwd=ROOT, env=_env(var), capture_output=True, text=True, check=True, timeout=60
    )
    status, body = json.loads(shown.stdout.strip().splitlines()[-1])
    return status, body


class _Worker:
    def __init__(self, var: Path, queue: str, log: Path):
        self.log = log
        self.process = subprocess.Popen(  # noqa: S603
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "pit",
                "worker",
                "--pool=solo",
                "--loglevel=INFO",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "-Q",
                queue,
                "-n",
                f"{queue}-{uuid.uuid4().hex[:6]}@localhost",
            ],
            cwd=ROOT,
            env=_env(var),
            stdout=log.open("ab"),
            stderr=subprocess.STDOUT,
        )
        wait_for(lambda: " ready." in self.output() or self.process.poll() is not None, timeout=90, what="a worker")
        assert self.process.poll() is None, self.output()

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def workers(pit_var, tmp_path):
    started: list[_Worker] = []

    def start(queue: str) -> _Worker:
        started.append(_Worker(pit_var, queue, tmp_path / f"{queue}-{len(started)}.log"))
        return started[-1]

    yield start
    for worker in started:
        worker.stop()


def test_a_killed_worker_makes_healthz_503_naming_its_queue(pit_var, workers):
    """The fault: /healthz said ok with the urgent worker dead."""
    urgent = workers("urgent")
    workers("bulk")
    status, body = _health(pit_var)
    assert (status, body["failing"]) == (200, [])
    assert body["checks"]["queue:urgent"]["consumers"] == 1

    urgent.process.send_signal(signal.SIGKILL)
    urgent.process.wait(timeout=10)
    time.sleep(5)  # past PIT_HEALTH_WORKER_STALE_SECONDS=4
    status, body = _health(pit_var)
    assert (status, body["status"], body["failing"]) == (503, "unavailable", ["queue:urgent"])
    assert body["checks"]["queue:urgent"]["detail"].startswith("no live consumer (no heartbeat within 4 s; the last")
    assert body["checks"]["queue:bulk"]["ok"] is True


def test_a_worker_parks_an_empty_message_file_and_keeps_consuming(pit_var, workers):
    """The fault: an empty message file in the filesystem broker's folder killed the urgent worker
    (JSONDecodeError)."""
    worker = workers("urgent")
    queue_folder = pit_var / "broker" / "queue"
    # Named to sort before the task sent after them (kombu names files by time, in ms).
    (queue_folder / f"00_{uuid.uuid4()}.urgent.msg").write_bytes(b"")
    (queue_folder / f"01_{uuid.uuid4()}.urgent.msg").write_bytes(b'{"body": "trunc')
    subprocess.run([sys.executable, "-c", SEND], cwd=ROOT, env=_env(pit_var), check=True, timeout=60)  # noqa: S603

    wait_for(
        lambda: "core.outbox_dispatch" in worker.output() and "succeeded" in worker.output(),
        timeout=60,
        what="the task after the malformed files to run",
    )
    assert worker.process.poll() is None
    parked = sorted(path.name.split("_")[0] for path in (pit_var / "broker" / "parked").iterdir())
    assert parked == ["00", "01"]
    assert worker.output().count("parked a malformed message of queue urgent") == 2
    assert "JSONDecodeError" not in worker.output()
    assert [path for path in queue_folder.iterdir() if path.name.endswith(".urgent.msg")] == []


def _free_port() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return str(probe.getsockname()[1])


def _children(pid: int) -> dict[int, str]:
    shown = subprocess.run(["ps", "-o", "pid=,args=", "--ppid", str(pid)], capture_output=True, text=True)  # noqa: S607
    return {int(line.split(None, 1)[0]): line.split(None, 1)[1] for line in shown.stdout.splitlines() if line.strip()}


def test_runpit_restarts_a_worker_that_dies_and_says_so(pit_var):
    """The fault: the urgent worker died and runpit left it dead."""
    runpit = subprocess.Popen(  # noqa: S603
        [sys.executable, "manage.py", "runpit", "--port", _free_port()],
        cwd=ROOT,
        env=_env(pit_var),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(line.rstrip("\n") for line in runpit.stdout), daemon=True)
    reader.start()
    try:
        wait_for(lambda: any("The pit is at" in line for line in lines), timeout=120, what="runpit to start")
        urgent = [pid for pid, args in _children(runpit.pid).items() if "-Q urgent" in args]
        assert len(urgent) == 1
        os.kill(urgent[0], signal.SIGKILL)

        ended = f"runpit: the urgent worker (pid {urgent[0]}) ended with signal SIGKILL; restarting it"
        wait_for(lambda: any(ended in line for line in lines), timeout=30, what="runpit to notice")
        restarted = wait_for(
            lambda: [line for line in lines if "runpit: the urgent worker restarted (pid " in line],
            timeout=30,
            what="runpit to restart the worker",
        )
        new_pid = int(restarted[0].split("(pid ")[1].rstrip(")"))
        assert new_pid != urgent[0] and "-Q urgent" in _children(runpit.pid)[new_pid]
        # The new worker consumes the urgent queue: its heartbeat makes the queue live again.
        wait_for(lambda: _health(pit_var)[1]["checks"]["queue:urgent"]["ok"], timeout=90, what="a live urgent queue")
    finally:
        runpit.send_signal(signal.SIGTERM)
        try:
            runpit.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(runpit.pid, signal.SIGKILL)
            runpit.wait()


def test_the_transport_parks_a_file_that_holds_no_message_and_hands_out_the_next(tmp_path):
    folders = {name: tmp_path / name for name in ("queue", "processed", "parked", "control")}
    for folder in folders.values():
        folder.mkdir()
    options = {
        "data_folder_in": str(folders["queue"]),
        "data_folder_out": str(folders["queue"]),
        "processed_folder": str(folders["processed"]),
        "parked_folder": str(folders["parked"]),
        "control_folder": str(folders["control"]),
    }
    with Connection(
        "filesystem://localhost/", transport="pit.core.broker:Transport", transport_options=options
    ) as conn:
        # A queue of its own: kombu's virtual transports share their exchanges' state in the process.
        name = f"parking-{uuid.uuid4().hex[:8]}"
        queue = conn.SimpleQueue(name)
        # Named to sort before the message put after them (kombu names files by time, in ms).
        (folders["queue"] / f"00_{uuid.uuid4()}.{name}.msg").write_bytes(b"")
        (folders["queue"] / f"01_{uuid.uuid4()}.{name}.msg").write_bytes(b"[1, 2]")
        queue.put({"n": 7})
        assert [path.name for path in folders["queue"].iterdir() if path.name.endswith(".part")] == []
        message = queue.get(timeout=10)
        assert message.payload == {"n": 7}
        message.ack()
        queue.close()
    assert sorted(path.name.split("_")[0] for path in folders["parked"].iterdir()) == ["00", "01"]
