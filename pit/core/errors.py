"""Errors services raise, in words the caller can show. Bad input is Django's ValidationError
(with the field it concerns); these are the other outcomes an interface must tell apart."""


class Conflict(Exception):
    """The request clashes with what is already recorded (HTTP 409)."""

    def __init__(self, message: str, errors: dict[str, list[str]] | None = None, **details):
        super().__init__(message)
        self.message = message
        self.errors = errors or {}  # field path -> problem, as in a ValidationError
        self.details = details
