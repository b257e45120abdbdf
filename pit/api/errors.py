"""One error envelope for the whole API, and the exception handler that produces it.

Every non-2xx answer has this body (documented as `Error` in the schema):

    {"status": 400, "code": "invalid", "message": "...",
     "errors": {"wagers[2].amount": ["..."]}, "details": {}}

`errors` maps a field path (as the request spells it: `wagers[2].amount`, `player`, `coups[5].number`)
to its problems; it is `{}` when no field is at fault. `details` carries ids a client can act on
(the open shoe of a 409). Service errors become answers here: ValidationError -> 400, Conflict ->
409, an IntegrityError from a race the services did not foresee -> 409, never a 500.
"""

import logging

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DataError, IntegrityError
from django.http import Http404
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions, status
from rest_framework.response import Response

from pit.api.parsers import too_large
from pit.core.errors import Conflict

logger = logging.getLogger("pit.api")

NON_FIELD = "non_field_errors"
ROOT = "body"


class Unprocessable(exceptions.APIException):
    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
    default_code = "unprocessable"
    default_detail = _("The request cannot be processed.")


class ConflictError(exceptions.APIException):
    """A 409 raised by the API itself (e.g. an Idempotency-Key that could not be taken)."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"
    default_detail = _("The request clashes with another one.")

    def __init__(self, detail=None, code=None, details=None):
        super().__init__(detail, code)
        self.details = details or {}


# A message quotes at most this much of what was sent (the kit quotes 40 characters of a value; this
# bounds a message built elsewhere, e.g. a library's, that echoes a whole value).
MAX_MESSAGE = 500


def bounded(message: str) -> str:
    return message if len(message) <= MAX_MESSAGE else f"{message[:MAX_MESSAGE]}... ({len(message)} characters)"


def _messages(value) -> list[str]:
    if isinstance(value, list | tuple):
        return [str(item) for item in value]
    return [str(value)]


def flatten_errors(detail, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested error structure as `{"wagers[2].amount": ["..."]}`."""
    flat: dict[str, list[str]] = {}

    def add(path: str, messages: list[str]) -> None:
        flat.setdefault(path or ROOT, []).extend(bounded(message) for message in messages)

    def walk(value, path: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                key = str(key)
                if key == NON_FIELD:
                    walk(item, path)
                elif key.isdigit():  # ListField / DictField child errors are keyed by index
                    walk(item, f"{path}[{key}]")
                else:
                    walk(item, f"{path}.{key}" if path else key)
        elif isinstance(value, list | tuple):
            if all(isinstance(item, str) for item in value):
                add(path, _messages(value))
            else:
                for index, item in enumerate(value):
                    if item in ({}, [], None):
                        continue
                    if isinstance(item, str):
                        add(path, [str(item)])
                    else:
                        walk(item, f"{path}[{index}]")
        else:
            add(path, [str(value)])

    walk(detail, prefix)
    return flat


def django_validation_errors(exc: DjangoValidationError) -> dict[str, list[str]]:
    if hasattr(exc, "error_dict"):
        return {(ROOT if key == "__all__" else key): list(messages) for key, messages in exc.message_dict.items()}
    return {ROOT: list(exc.messages)}


def error_body(status_code: int, code: str, message: str, errors=None, details=None) -> dict:
    return {
        "status": status_code,
        "code": code,
        "message": message,
        "errors": errors or {},
        "details": details or {},
    }


def error_response(status_code: int, code: str, message: str, errors=None, details=None, headers=None) -> Response:
    return Response(error_body(status_code, code, message, errors, details), status=status_code, headers=headers)


_CODES = {
    400: "invalid",
    401: "not_authenticated",
    403: "permission_denied",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    422: "unprocessable",
    429: "throttled",
}


# Every `code` an error answer can carry (the schema's Error.code enum).
ERROR_CODES = tuple(dict.fromkeys(("invalid", "parse_error", *_CODES.values(), "server_error", "error")))


def exception_response(exc) -> Response | None:
    """The enveloped answer for an exception, or None for one that is a bug (logged as such)."""
    if isinstance(exc, RequestDataTooBig):
        exc = too_large()
    if isinstance(exc, DjangoValidationError):
        return error_response(
            400, "invalid", gettext("The request has errors; see `errors`."), django_validation_errors(exc)
        )
    if isinstance(exc, Conflict):
        return error_response(409, "conflict", exc.message, exc.errors, exc.details)
    if isinstance(exc, DataError):
        logger.warning("API request with a value the database cannot hold: %s", exc)
        return error_response(
            400,
            "invalid",
            gettext(
                "A value in the request cannot be stored (out of range or not representable); nothing was written."
            ),
        )
    if isinstance(exc, IntegrityError):
        logger.warning("API request lost a race: %s", exc)
        return error_response(409, "conflict", gettext("The request clashed with a concurrent write; send it again."))
    if isinstance(exc, Http404):
        return error_response(404, "not_found", str(exc) or "Not found.")
    if isinstance(exc, DjangoPermissionDenied):
        return error_response(403, "permission_denied", str(exc) or "You may not do this.")
    if isinstance(exc, exceptions.ValidationError):
        return error_response(
            400, "invalid", gettext("The request has errors; see `errors`."), flatten_errors(exc.detail)
        )
    if isinstance(exc, exceptions.APIException):
        headers: dict[str, str] = {}
        auth_header = getattr(exc, "auth_header", None)  # NotAuthenticated/AuthenticationFailed, set by the view
        if auth_header:
            headers["WWW-Authenticate"] = auth_header
        wait = getattr(exc, "wait", None)  # Throttled
        if wait:
            headers["Retry-After"] = str(int(wait))
        retry_after = (getattr(exc, "details", None) or {}).get("retry_after_seconds")
        if retry_after is not None:  # e.g. the 409 of an Idempotency-Key that could not be taken
            headers["Retry-After"] = str(int(retry_after))
        code = _CODES.get(exc.status_code, "error")
        message = exc.detail if isinstance(exc.detail, str) else "The request was refused."
        errors = {} if isinstance(exc.detail, str) else flatten_errors(exc.detail)
        if isinstance(exc, exceptions.ParseError):
            code, errors = "parse_error", {ROOT: [str(message)]}
        return error_response(
            exc.status_code,
            code,
            str(message),
            errors,
            getattr(exc, "details", None),
            headers=headers or None,
        )
    return None


def exception_handler(exc, context) -> Response:
    """REST_FRAMEWORK["EXCEPTION_HANDLER"]: every exception gets the envelope; a bug is a logged 500."""
    response = exception_response(exc)
    if response is None:
        logger.exception("API error in %s", context.get("view").__class__.__name__, exc_info=exc)
        response = error_response(500, "server_error", gettext("Something went wrong on our side; it is logged."))
    return response
