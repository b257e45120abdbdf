"""Settings for the test suite: whatever database and broker the environment names, tasks eager
unless a test starts a real worker."""

import os
from pathlib import Path

# pytest-xdist runs the suite in several processes (gw0, gw1, ...), each with a test database of
# its own: each gets a var folder of its own too (the filesystem broker, exports, archives), set in
# the environment before the base settings read it so that every path under it follows. A process
# a test starts inherits the folder as it is (its name is already the worker's).
_xdist_worker = os.environ.get("PYTEST_XDIST_WORKER")
if _xdist_worker:
    _var_dir = Path(os.environ.get("PIT_VAR_DIR") or Path(__file__).resolve().parents[2] / "var")
    if _var_dir.name != _xdist_worker:
        os.environ["PIT_VAR_DIR"] = str(_var_dir / _xdist_worker)

from pit.settings.base import *  # noqa: E402, F403
from pit.settings.components.environment import env  # noqa: E402

SECRET_KEY = "test-only-secret-key-not-for-production-use-0123456789"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Tests sign users in with force_login (no password, no code): two-factor login is off in them but
# for the tests of it (tests/accounts/test_two_factor.py), which set the roles it is required for.
PIT_TWO_FACTOR_ROLES = []
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Tests never collect static files; without a STATIC_ROOT WhiteNoise serves from the finders only
# (and does not warn, in every request of every test, that staticfiles/ does not exist).
STATIC_ROOT = None

if DATABASES["default"]["ENGINE"].startswith("django.db.backends.postgresql"):  # noqa: F405
    # No JIT compilation in the test database's sessions (pytest, live servers, the workers the
    # tests start). The tests' tables are small and never analyzed, so the planner assumes 10 pages
    # a table, and since coups, wagers and entries are partitioned (6+ partitions each, every one
    # in a plan that does not prune by gaming day) most joins over them cost more than
    # jit_above_cost: each such query then spent far longer compiling than running (measured:
    # tests/admin/test_actions.py 100 s with JIT, 54 s without; docs/development.md). Results are the
    # same either way: JIT changes how an expression is evaluated, never what it answers.
    _options = DATABASES["default"].setdefault("OPTIONS", {})  # noqa: F405
    _options["options"] = f"{_options.get('options', '')} -c jit=off".strip()
