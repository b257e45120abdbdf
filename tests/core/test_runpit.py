"""`make run`'s server on the embedded default: the logins come last, after every banner, and the
filesystem broker connects without kombu's "No hostname was supplied" warning."""

import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from kombu import Connection

ROOT = Path(__file__).resolve().parents[2]
LAST_LOGIN = "cage-demo-pit"  # the last line demo_pit --logins-only prints
# What the settings say and what Celery uses (it reads CELERY_BROKER_URL from the environment first).
SHOW_BROKER = (
    "import django; django.setup(); from django.conf import settings; from pit.celery import app; "
    "print(settings.CELERY_BROKER_URL, app.conf.broker_url)"
)


def _embedded_env(var_dir: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env.update(DJANGO_SETTINGS_MODULE="pit.settings.local", PIT_VAR_DIR=str(var_dir), PYTHONUNBUFFERED="1")
    return env


def _free_port() -> str:
    """A port nobody listens on (the two CI suites run side by side, each may run this test)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return str(probe.getsockname()[1])


def test_runpit_prints_the_logins_after_the_workers_beat_and_web_banners(tmp_path):
    port = _free_port()
    errors = tmp_path / "stderr.txt"
    with errors.open("w") as stderr:
        runpit = subprocess.Popen(  # noqa: S603
            [sys.executable, "manage.py", "runpit", "--port", port, "--demo-logins"],
            cwd=ROOT,
            env=_embedded_env(tmp_path),
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            start_new_session=True,
        )
        lines = []
        try:
            deadline = time.monotonic() + 180
            for line in runpit.stdout:
                lines.append(line.rstrip("\n"))
                if LAST_LOGIN in line or time.monotonic() > deadline:
                    break
        finally:
            runpit.send_signal(signal.SIGTERM)  # runpit stops its workers, beat and web server
            try:
                runpit.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(runpit.pid, signal.SIGKILL)
                runpit.wait()

    def first(text: str) -> int:
        return next(index for index, line in enumerate(lines) if text in line)

    logins = first("Logins (demo only")
    assert lines[-1].strip() == "cage        cage / cage-demo-pit"
    banners = [first(".> urgent"), first(".> bulk"), first("maxinterval"), first("Quit the server with")]
    assert max(banners) < first("Broker: filesystem://localhost/") < first(f"The pit: http://127.0.0.1:{port}/admin/")
    assert first("The pit: http") < logins < len(lines) - 1
    assert "No hostname was supplied" not in errors.read_text()


@pytest.mark.parametrize("given", [None, "filesystem://"])
def test_the_embedded_broker_url_names_its_host(tmp_path, caplog, given):
    """kombu warns "No hostname was supplied" on each connection to a URL without a host (a worker
    made three); the embedded default names one, and so does a bare filesystem:// given."""
    env = _embedded_env(tmp_path)
    if given:
        env["CELERY_BROKER_URL"] = given
    shown = subprocess.run(  # noqa: S603
        [sys.executable, "-c", SHOW_BROKER], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert shown.stdout.split() == ["filesystem://localhost/"] * 2
    url = "filesystem://localhost/"
    with caplog.at_level(logging.WARNING, logger="kombu.connection"):
        connection = Connection(url, transport_options={"data_folder_in": str(tmp_path)})
        assert connection.info()["hostname"] == "localhost"
        connection.release()
    assert caplog.records == []
    # The same check is what warned before: a connection to the bare URL.
    with caplog.at_level(logging.WARNING, logger="kombu.connection"):
        Connection("filesystem://").info()
    assert [record.getMessage() for record in caplog.records] == [
        "No hostname was supplied. Reverting to default 'localhost'"
    ]
