"""Settings for the test suite: whatever database and broker the environment names, tasks eager
unless a test starts a real worker."""
from pit.settings.base import *  # noqa: F403
from pit.settings.base import env

SECRET_KEY = "test-only-secret-key-not-for-production-use-0123456789"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Tests never collect static files; without a STATIC_ROOT WhiteNoise serves from the finders only
# (and does not warn, in every request of every test, that staticfiles/ does not exist).
STATIC_ROOT = None
