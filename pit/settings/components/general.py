"""Django itself: the site, the apps, middleware, templates, static files and logging."""

from pit.settings.components.database import DATABASE_IS_POSTGRES
from pit.settings.components.environment import BASE_DIR, VAR_DIR, env

# ---------------------------------------------------------------- The site
DEBUG = env.bool("DJANGO_DEBUG", default=False)
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="embedded-default-insecure-key-change-me-in-production")
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])
# The casino's time zone: gaming days and reports are in it.
TIME_ZONE = env.str("DJANGO_TIME_ZONE", default="UTC")
LANGUAGE_CODE = "en-us"
LANGUAGES = [("en-us", "English"), ("zh-hant", "繁體中文"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
FORMAT_MODULE_PATH = ["pit.formats"]  # ISO dates and 24-hour times on every page
USE_I18N = True
USE_TZ = True
ROOT_URLCONF = "pit.urls"
WSGI_APPLICATION = "pit.wsgi.application"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# ---------------------------------------------------------------- Apps
DJANGO_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
]
THIRD_PARTY_APPS = [
    "rest_framework",
    "axes",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "pgtrigger",
    "pghistory",
    "pghistory.admin",
    # Two-factor login for staff: TOTP authenticators (pit.accounts.two_factor).
    "django_otp",
    "django_otp.plugins.otp_totp",
]
LOCAL_APPS = [
    "pit.core",
    "pit.accounts",
    "pit.tables",
    "pit.paytables",
    "pit.shoes",
    "pit.ledger",
    "pit.records",
    "pit.archive",
    "pit.compliance",
    "pit.accounting",
    "pit.dealers",
    "pit.protection",
    "pit.reports",
    "pit.rollups",
    "pit.dashboard",
    "pit.floor",
    "pit.api",
]
INSTALLED_APPS = DJANGO_APPS + THIRD_PARTY_APPS + LOCAL_APPS

# ---------------------------------------------------------------- Middleware
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "pit.api.middleware.AsciiNumbersInQueryMiddleware",
    # One log line per 401/403 (pit.access); the admin's idle timeout (PIT_ADMIN_IDLE_TIMEOUT_MINUTES).
    "pit.accounts.access.AccessDeniedLogMiddleware",
    "pit.accounts.access.IdleSessionTimeoutMiddleware",
    # Two-factor login (django-otp): the session's verified device, then the admin refused to a user
    # whose role requires it and whose session is not verified (PIT_TWO_FACTOR_ROLES).
    "django_otp.middleware.OTPMiddleware",
    "pit.accounts.two_factor.TwoFactorRequiredMiddleware",
    # An admin page links only what its reader may open (pit.core.admin_site.link_allowed).
    "pit.core.admin_site.RefusedLinksMiddleware",
]
if DATABASE_IS_POSTGRES:
    # Tags every audit event written by a request with the user (or device), URL and address. It
    # works by adding a set_config() call to each SQL statement, which only PostgreSQL understands.
    MIDDLEWARE.append("pit.accounts.audit.PitHistoryMiddleware")
else:
    # SQLite has no audit triggers: the audit trail is written from Python with the request's user.
    MIDDLEWARE.append("pit.accounts.audit.AuditContextMiddleware")
# django-axes last: it turns a locked-out admin login into its lockout answer.
MIDDLEWARE.append("axes.middleware.AxesMiddleware")

# ---------------------------------------------------------------- Templates and static files
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]
STATIC_URL = "/static/"
STATIC_ROOT = env.str("DJANGO_STATIC_ROOT", default=str(BASE_DIR / "staticfiles"))
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_ROOT = env.str("DJANGO_MEDIA_ROOT", default=str(VAR_DIR / "media"))
MEDIA_URL = "/media/"

# ---------------------------------------------------------------- E-mail (scheduled report exports)
# One URL (django-environ), e.g. smtp+tls://user:password@mail.casino.example:587; the default
# prints each e-mail to the worker's log instead of sending it.
_EMAIL = env.email_url("EMAIL_URL", default="consolemail://")
EMAIL_BACKEND = _EMAIL["EMAIL_BACKEND"]
EMAIL_HOST = _EMAIL.get("EMAIL_HOST") or "localhost"
EMAIL_PORT = int(_EMAIL.get("EMAIL_PORT") or 25)
EMAIL_HOST_USER = _EMAIL.get("EMAIL_HOST_USER") or ""
EMAIL_HOST_PASSWORD = _EMAIL.get("EMAIL_HOST_PASSWORD") or ""
EMAIL_USE_TLS = bool(_EMAIL.get("EMAIL_USE_TLS"))
EMAIL_USE_SSL = bool(_EMAIL.get("EMAIL_USE_SSL"))
DEFAULT_FROM_EMAIL = env.str("DJANGO_DEFAULT_FROM_EMAIL", default="pit@localhost")

# ---------------------------------------------------------------- Logging
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("DJANGO_LOG_LEVEL", default="INFO")},
}
