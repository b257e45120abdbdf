"""Production settings: no default secret, DEBUG off, secure cookies and HSTS.

`python manage.py check --deploy --settings=pit.settings.production` is clean under it.
"""

from django.core.exceptions import ImproperlyConfigured

from pit.settings.base import *  # noqa: F403
from pit.settings.components.environment import env

DEBUG = False
# The production settings are in force (manage.py demo_pit refuses to create its known logins).
PIT_PRODUCTION = True
SECRET_KEY = env.str("DJANGO_SECRET_KEY")  # no default: refuse to start without one
# Refuse to start on an empty or guessable secret (the bar of check --deploy's security.W009): a
# server started with one would sign sessions anyone can forge, or answer 500 to every request.
if len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5 or SECRET_KEY.startswith("django-insecure-"):
    raise ImproperlyConfigured(
        f"DJANGO_SECRET_KEY is {'empty' if not SECRET_KEY else f'too weak ({len(SECRET_KEY)} characters)'}: "
        "it must be at least 50 random characters. Generate one with "
        "python3 -c 'import secrets; print(secrets.token_urlsafe(50))'"
    )
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS")
# Production never falls back to the embedded default: without these, a casino's books would
# quietly run on a local SQLite file and a folder broker. base.py has read them; here they must exist.
for _required in ("DATABASE_URL", "CELERY_BROKER_URL"):
    env.str(_required)  # ImproperlyConfigured when unset

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
# /healthz is probed over plain HTTP by load balancers and by CI on the host itself.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
SECURE_HSTS_PRELOAD = env.bool("DJANGO_SECURE_HSTS_PRELOAD", default=True)
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
