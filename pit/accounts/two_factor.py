"""Two-factor login for staff (TOTP, django-otp): the admin login asks for the six-digit code of the
user's authenticator app, required for the roles that change money or records
(PIT_TWO_FACTOR_ROLES; "superuser" stands for superusers).

A user who must use it and has no authenticator yet signs in with their password and can open only
the enrollment page (a QR code of their TOTP key, confirmed by a first code); every other admin page
sends them there. A session is verified by the code given at login or at enrollment.
"""

from __future__ import annotations

import base64
import io
from typing import Any

import qrcode
import qrcode.image.svg
from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.admin import site
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import logout
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django_otp import login as otp_login
from django_otp import user_has_device
from django_otp.plugins.otp_totp.models import TOTPDevice

SUPERUSER = "superuser"
ENROLL_URL_NAME = "two_factor_enroll"


def two_factor_required(user: Any) -> bool:
    """Whether `user` signs in to the admin with a second factor: a superuser if "superuser" is among
    PIT_TWO_FACTOR_ROLES, anyone in a group named there."""
    roles = set(settings.PIT_TWO_FACTOR_ROLES)
    if not roles or not getattr(user, "is_authenticated", False):
        return False
    if user.is_superuser and SUPERUSER in roles:
        return True
    return user.groups.filter(name__in=roles).exists()


def totp_device(user: Any, *, confirmed: bool) -> TOTPDevice | None:
    return TOTPDevice.objects.filter(user=user, confirmed=confirmed).order_by("pk").first()


class TwoFactorLoginForm(AdminAuthenticationForm):
    """The admin login: username, password and, for a user with an authenticator, its current code."""

    otp_token = forms.CharField(
        label=_("Authenticator code"),
        required=False,
        max_length=8,
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric"}),
        help_text=_("The six digits your authenticator app shows (staff enrolled in two-factor login)."),
    )

    def confirm_login_allowed(self, user: Any) -> None:
        super().confirm_login_allowed(user)
        device = totp_device(user, confirmed=True)
        if device is None:
            return  # not enrolled: signs in to the enrollment page only, if two-factor login is required
        token = (self.cleaned_data.get("otp_token") or "").strip()
        if not token:
            raise forms.ValidationError(gettext("Enter the code your authenticator app shows."), code="otp_required")
        if not device.verify_token(token):
            raise forms.ValidationError(
                gettext("That authenticator code is not valid; try the current one."), code="otp"
            )
        user.otp_device = device  # django-otp's user_logged_in handler verifies the session with it


class TwoFactorRequiredMiddleware:
    """An admin page for a user who must use two-factor login and whose session is not verified by
    it sends them to the enrollment page (not enrolled) or back to the login (enrolled)."""

    EXEMPT = ("login", "logout", "jsi18n")

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if (
            user is not None
            and request.path.startswith(reverse("admin:index"))
            and not any(request.path.startswith(reverse(f"admin:{name}")) for name in self.EXEMPT)
            and request.path != reverse(ENROLL_URL_NAME)
            and two_factor_required(user)
            and not user.is_verified()
        ):
            if user_has_device(user, confirmed=True):
                logout(request)  # the session signs in again, with the code
                return HttpResponseRedirect(f"{reverse('admin:login')}?next={request.path}")
            return HttpResponseRedirect(reverse(ENROLL_URL_NAME))
        return self.get_response(request)


class EnrollForm(forms.Form):
    otp_token = forms.CharField(label=_("Code from the app"), max_length=8, strip=True)


def qr_svg(text: str) -> str:
    image = qrcode.make(text, image_factory=qrcode.image.svg.SvgPathImage, box_size=8)
    buffer = io.BytesIO()
    image.save(buffer)
    return buffer.getvalue().decode()


def enroll_view(request: HttpRequest) -> HttpResponse:
    """The signed-in user's authenticator: a QR code of a new TOTP key (and the key in text), kept
    unconfirmed until a first code from the app confirms it; that code verifies the session."""
    user = request.user
    confirmed = totp_device(user, confirmed=True)
    device = confirmed or totp_device(user, confirmed=False)
    if device is None:
        device = TOTPDevice.objects.create(user=user, name="authenticator", confirmed=False)
    form = EnrollForm(request.POST or None)
    if confirmed is None and request.method == "POST" and form.is_valid():
        if device.verify_token(form.cleaned_data["otp_token"]):
            device.confirmed = True
            device.save(update_fields=["confirmed"])
            otp_login(request, device)
            messages.success(request, gettext("Two-factor login is on: you will be asked for a code at every login."))
            return HttpResponseRedirect(reverse("admin:index"))
        form.add_error("otp_token", gettext("That code is not valid; enter the one the app shows now."))
    context = {
        **site.each_context(request),
        "title": _("Two-factor login"),
        "enrolled": confirmed is not None,
        "required": two_factor_required(user),
        "form": form,
        "qr": None if confirmed else qr_svg(device.config_url),
        "key": None if confirmed else base64.b32encode(device.bin_key).decode(),
    }
    return TemplateResponse(request, "admin/accounts/two_factor.html", context)
