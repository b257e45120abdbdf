"""Access hardening that is not a row in the database: the client's address, the throttle of
failed API authentications (per key prefix and per address), the one log line per 401/403, and
the admin's idle session timeout.

The failure counters live in Django's cache (PIT_CACHE_URL: Redis in production, so that every
gunicorn worker counts together; the embedded default's per-process memory cache is enough for one
process; a Redis that fails degrades to per-process counts, pit/core/cache.py). A fixed window of
PIT_API_AUTH_FAILURE_WINDOW seconds, per issued key prefix or, for keys with none, per address
(the rule is under "throttle" below).
"""

import hashlib
import ipaddress
import logging
import time

from axes.backends import AxesStandaloneBackend
from django.conf import settings
from django.contrib.auth import logout
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.urls import get_resolver, get_urlconf

logger = logging.getLogger("pit.access")


def client_address(request) -> str | None:
    """The client's IP address: REMOTE_ADDR, or with PIT_TRUSTED_PROXIES=N proxies in front (nginx)
    the address the first of them saw, N entries from the right of X-Forwarded-For. Entries to the
    left of it are the client's own claims and never trusted. None when there is no valid address."""
    proxies = settings.PIT_TRUSTED_PROXIES
    candidate = request.META.get("REMOTE_ADDR", "")
    if proxies:
        forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
        if len(forwarded) >= proxies:
            candidate = forwarded[-proxies]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return None


# ---------------------------------------------------------------------------------------- throttle
# The rule (docs/operations/access.md): a key that authenticates is never refused, whatever others
# did. A wrong key whose prefix was issued (a device's or a staff token's) counts against that prefix
# only: PIT_API_AUTH_FAILURE_LIMIT failures within the window and wrong keys with that prefix get 429.
# Only a key with no issued prefix (malformed, or made up) counts against the client's address, with
# the far larger PIT_API_AUTH_ADDRESS_FAILURE_LIMIT: a floor NAT puts every table behind one address.


def _counter(kind: str, value: str) -> str:
    return f"pit:authfail:{kind}:" + hashlib.sha256(value.encode()).hexdigest()[:32]


def _subject(address: str | None, prefix: str | None) -> tuple[str, int]:
    """The counter a failure goes to, and its limit: the prefix when there is one, else the address."""
    if prefix:
        return _counter("prefix", prefix), settings.PIT_API_AUTH_FAILURE_LIMIT
    return _counter("addr", address or "unknown"), settings.PIT_API_AUTH_ADDRESS_FAILURE_LIMIT


def auth_blocked_for(*, address: str | None = None, prefix: str | None = None) -> int:
    """Seconds until wrong keys with this issued prefix (given), or from this address with no issued
    prefix (no prefix given), are tried again; 0 when they may be now."""
    base, limit = _subject(address, prefix)
    found = cache.get_many([base, base + ":until"])
    if found.get(base, 0) < limit:
        return 0
    return max(int(found.get(base + ":until", time.time()) - time.time()) + 1, 1)


def auth_failure_record(*, address: str | None = None, prefix: str | None = None) -> None:
    """One failed authentication with this issued key prefix, or (no prefix) from this address."""
    window = settings.PIT_API_AUTH_FAILURE_WINDOW
    base, _ = _subject(address, prefix)
    if cache.add(base, 0, timeout=window):
        cache.set(base + ":until", time.time() + window, timeout=window)
    try:
        cache.incr(base)
    except ValueError:  # expired between add and incr: a new window
        cache.set(base, 1, timeout=window)
        cache.set(base + ":until", time.time() + window, timeout=window)


# ---------------------------------------------------------------------------------------- 401 / 403


def _principal(request) -> str:
    user = getattr(request, "user", None)
    if user is None or not getattr(user, "is_authenticated", False):
        return "anonymous"
    device = getattr(user, "device", None)
    if device is not None:
        return f"device {device.pk} ({device.key_prefix})"
    return f"user {user.pk} ({user.get_username()})"


def _reason(response, exception) -> str:
    if exception is not None:
        return str(exception) or type(exception).__name__
    data = getattr(response, "data", None)
    if isinstance(data, dict):
        return str(data.get("message") or data.get("detail") or "")
    return ""


class AccessDeniedLogMiddleware:
    """Every 401 and 403 logged once, on one line, with no traceback (logger `pit.access`): status,
    method, path, who (anonymous, user or device), the client's address and the reason.

    Django logs a view's PermissionDenied with its traceback; here it becomes the 403 page Django
    would have shown, logged by this middleware instead. Responses Django logged already (a CSRF
    refusal) are not logged twice.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code in (401, 403) and not getattr(response, "_has_been_logged", False):
            reason = _reason(response, getattr(request, "_pit_denied", None)).replace("\n", " ")
            logger.warning(
                "access denied: %s %s %s by %s from %s: %s",
                response.status_code,
                request.method,
                request.path,
                _principal(request),
                client_address(request) or "unknown",
                reason,
            )
            response._has_been_logged = True  # Django's own "Forbidden: ..." line would be the second
        return response

    def process_exception(self, request, exception):
        if not isinstance(exception, PermissionDenied):
            return None
        from django.core.handlers.exception import get_exception_response

        request._pit_denied = exception
        return get_exception_response(request, get_resolver(get_urlconf()), 403, exception)


# ---------------------------------------------------------------------------------------- idle timeout

LAST_ACTIVITY = "pit_last_activity"


def session_activity_start(sender, request, user, **kwargs):
    """At login the clock starts (the login writes the session anyway: no write of its own later)."""
    if getattr(request, "session", None) is not None:
        request.session[LAST_ACTIVITY] = int(time.time())


class IdleSessionTimeoutMiddleware:
    """Signs a staff session out after PIT_ADMIN_IDLE_TIMEOUT_MINUTES without a request of theirs;
    the next page is the login page. The dashboard's own 5-second refresh (PIT_IDLE_EXEMPT_PATHS)
    is not activity: a screen left open does not keep a session alive. The time is stored in the
    session at most once a minute, not at every request."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        session = getattr(request, "session", None)
        user = getattr(request, "user", None)
        if session is not None and user is not None and user.is_authenticated:
            now = int(time.time())
            last = session.get(LAST_ACTIVITY)
            if last is not None and now - last > settings.PIT_ADMIN_IDLE_TIMEOUT_MINUTES * 60:
                logger.info("idle session ended: user %s (%s) after %s s", user.pk, user.get_username(), now - last)
                logout(request)
            elif not request.path.startswith(tuple(settings.PIT_IDLE_EXEMPT_PATHS)) and (
                last is None or now - last >= 60
            ):
                session[LAST_ACTIVITY] = now
        return self.get_response(request)


# ---------------------------------------------------------------------------------------- admin logins


class LoginAttemptsBackend(AxesStandaloneBackend):
    """django-axes' lockout check for logins through a request (the admin's login form). A login
    with no request (a script calling authenticate()) has no address to lock out and is not counted."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)
