"""A staff user's language: their own choice (LanguagePreference) on the admin pages, else the
language cookie or the browser's Accept-Language (Django's LocaleMiddleware), else English.

The choice is made in the admin's header (the language form of templates/admin/base_site.html,
posted to `language_set_view`), kept on the user and copied into the session at login, so a page
costs no query. The API is left to Accept-Language: a floor system asks for its language with
each request, whoever's key it uses.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme

from pit.accounts.models import LanguagePreference

SESSION_KEY = "pit_language"
LANGUAGE_CODES = frozenset(code for code, _name in settings.LANGUAGES)
# Paths whose language is the client's Accept-Language only.
API_PREFIX = "/api/"


def language_preferred(user) -> str:
    """The user's chosen language code, or "" when they chose none."""
    if not getattr(user, "is_authenticated", False):
        return ""
    preference = LanguagePreference.objects.filter(user_id=user.pk).values_list("language", flat=True).first()
    return preference if preference in LANGUAGE_CODES else ""


def language_prefer(*, user, language: str) -> LanguagePreference:
    """Sets `user`'s language (a code of settings.LANGUAGES)."""
    if language not in LANGUAGE_CODES:
        raise ValueError(f"{language!r} is not one of the site's languages: {sorted(LANGUAGE_CODES)}")
    preference, _created = LanguagePreference.objects.update_or_create(user=user, defaults={"language": language})
    return preference


def session_language_start(sender, request, user, **kwargs) -> None:
    """At login (user_logged_in): the user's language into the session, "" for none."""
    if request is not None and hasattr(request, "session"):
        request.session[SESSION_KEY] = language_preferred(user)


class UserLanguageMiddleware:
    """After AuthenticationMiddleware: activates a signed-in user's own language on every page but
    the API's. A session from before the preference existed is looked up once."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and not request.path.startswith(API_PREFIX):
            session = request.session
            if SESSION_KEY not in session:
                session[SESSION_KEY] = language_preferred(user)
            language = session[SESSION_KEY]
            if language in LANGUAGE_CODES:
                translation.activate(language)
                request.LANGUAGE_CODE = translation.get_language()
        return self.get_response(request)


def language_set_view(request: HttpRequest) -> HttpResponse:
    """POST language=<code>[&next=<path>]: keeps the signed-in user's choice, and the cookie for the
    login page after they sign out; back to `next` (a path of this site) or the start page."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    language = request.POST.get("language", "")
    target = request.POST.get("next") or "/admin/"
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = "/admin/"
    response = HttpResponseRedirect(target)
    if language not in LANGUAGE_CODES:
        return response
    if request.user.is_authenticated:
        language_prefer(user=request.user, language=language)
        request.session[SESSION_KEY] = language
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        secure=settings.LANGUAGE_COOKIE_SECURE or request.is_secure(),
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )
    return response
