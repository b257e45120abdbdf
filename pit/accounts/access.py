"""Access hardening that is not a row in the database: the client's address, the throttle of
failed API authentications (per key prefix and per address), the one log line per 401/403, and
the admin's idle session timeout.

The failure counters live in Django's cache (PIT_CACHE_URL: Redis in production, so that every
gunicorn worker counts together; the embedded default's per-process memory cache is enough for one
process). A fixed window: PIT_API_AUTH_FAILURE_LIMIT failures within PIT_API_AUTH_FAILURE_WINDOW
seconds block the address, or the key prefix, until the window ends.
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


def _keys(address: str | None, prefix: str | None) -> list[str]:
    keys = ["pit:authfail:addr:" + hashlib.sha256((address or "unknown").encode()).hexdigest()[:32]]
    if prefix:
        keys.append("pit:authfail:prefix:" + hashlib.sha256(prefix.encode()).hexdigest()[:32])
    return keys


def auth_blocked_for(*, address: str | None, prefix: str | None) -> int:
    """Seconds until this address or key prefix may try again; 0 when it may now."""
    now = time.time()
    found = cache.get_many([key for base in _keys(address, prefix) for key in (base, base + ":until")])
    wait = 0
    for base in _keys(address, prefix):
        if found.get(base, 0) >= settings.PIT_API_AUTH_FAILURE_LIMIT:
            wait = max(wait, int(found.get(base + ":until", now) - now) + 1)
    return wait


def auth_failure_record(*, address: str | None, prefix: str | None) -> None:
    """One failed authentication from this address with this key prefix (None: no usable prefix)."""
    window = settings.PIT_API_AUTH_FAILURE_WINDOW
    for base in _keys(address, prefix):
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
