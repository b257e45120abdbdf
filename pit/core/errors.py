"""Errors services raise, in words the caller can show. Bad input is Django's ValidationError
(with the field it concerns); these are the other outcomes an interface must tell apart."""

from django.core.exceptions import ValidationError


class Conflict(Exception):
    """The request clashes with what is already recorded (HTTP 409)."""

    def __init__(self, message: str, errors: dict[str, list[str]] | None = None, **details: object) -> None:
        super().__init__(message)
        self.message = message
        self.errors = errors or {}  # field path -> problem, as in a ValidationError
        self.details = details


def validation_message(exc: ValidationError) -> str:
    """A ValidationError in one line for a command-line user: each field named with its problem."""
    if hasattr(exc, "message_dict"):
        return "; ".join(
            " ".join(messages) if field == "__all__" else f"{field}: {' '.join(messages)}"
            for field, messages in exc.message_dict.items()
        )
    return " ".join(exc.messages)
