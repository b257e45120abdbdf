"""Authentication, password rules, admin login lockouts (django-axes) and the cache that counts API failures.

pit's own access knobs (trusted proxies, API failure limits, token lifetime, idle timeout) are in
`pit.settings.components.pit`, under "Access".
"""

from pit.settings.components.environment import env

# ---------------------------------------------------------------- Authentication
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "admin:login"
# django-axes first: it refuses a login attempt for a locked-out username and address before the
# password is even checked (pit.accounts.access.LoginAttemptsBackend; logins outside a request pass).
AUTHENTICATION_BACKENDS = [
    "pit.accounts.access.LoginAttemptsBackend",
    "django.contrib.auth.backends.ModelBackend",
]

# ---------------------------------------------------------------- Admin login lockouts (django-axes)
# Failed admin logins for one username from one address before both are locked out for a while.
AXES_FAILURE_LIMIT = env.int("PIT_ADMIN_LOGIN_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = env.float("PIT_ADMIN_LOCKOUT_HOURS", default=0.25)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "pit.accounts.access.client_address"
AXES_VERBOSE = False

# ---------------------------------------------------------------- Cache
# The cache holds the API's failed-authentication counters: Redis in production so that every web
# worker counts together (redis://127.0.0.1:6379/2); default: memory of the one process.
CACHES = {"default": env.cache("PIT_CACHE_URL", default="locmemcache://")}
if CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
    # One client per pool, not per call; a Redis that fails degrades to this process's memory
    # (pit/core/cache.py), so a connect or a read must fail fast rather than hold a request.
    CACHES["default"]["BACKEND"] = "pit.core.cache.RedisCache"
    CACHES["default"].setdefault("OPTIONS", {}).update(socket_connect_timeout=0.5, socket_timeout=0.5)
# While Redis is away the cache tries it again at most this often (seconds); meanwhile this process counts.
PIT_CACHE_RETRY_SECONDS = env.float("PIT_CACHE_RETRY_SECONDS", default=2.0)
