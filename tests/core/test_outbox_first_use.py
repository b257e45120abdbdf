"""A process whose threads owe their first tasks at once (a threaded server, a floor of terminals)
before anything imported the apps' tasks modules: every one of them finds its task. Celery runs its
task discovery once per process, so without a lock the threads arriving while the first one imports
found discovery done and their task not registered yet (NotRegistered, the write refused)."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
THREADS = 8
FIRST_USE = f"""
import threading
import django
django.setup()
from celery import current_app
from pit.core.outbox import outbox_message
assert "ledger.shoe_reconcile" not in current_app.tasks  # nothing imported the tasks modules yet
barrier = threading.Barrier({THREADS})
owed, failures = [], []
def owe():
    barrier.wait()
    try:
        owed.append(outbox_message("ledger.shoe_reconcile", 1).task_name)
    except Exception as exc:
        failures.append(type(exc).__name__)
threads = [threading.Thread(target=owe) for _ in range({THREADS})]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(len(owed), failures)
"""


def test_threads_owing_their_first_tasks_at_once_all_find_them(tmp_path):
    env = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env.update(DJANGO_SETTINGS_MODULE="pit.settings.test", PIT_VAR_DIR=str(tmp_path))
    result = subprocess.run(  # noqa: S603 (our own interpreter and code)
        [sys.executable, "-c", FIRST_USE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"{THREADS} []"
