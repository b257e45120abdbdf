"""The API's one parser: JSON, within the body limit, and a 400 (never a 500) for JSON that nests too
deeply for the parser. A body over the limit is a 413 naming it in bytes and in coups."""

from django.conf import settings
from rest_framework import exceptions, status
from rest_framework.parsers import JSONParser

# A batch holds at most this many coups; PIT_API_MAX_BODY_BYTES is set so that such a batch fits with
# realistic wagers (tests/api/test_input_classes.py posts one).
MAX_BATCH_COUPS = 5000


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too_large"


def too_large(size: int | None = None) -> PayloadTooLarge:
    limit = settings.PIT_API_MAX_BODY_BYTES
    sent = f"The body is {size} bytes; " if size else "The body is too large; "
    return PayloadTooLarge(
        f"{sent}the API takes at most {limit} bytes a request, and a batch at most {MAX_BATCH_COUPS} coups "
        f"(that many, with 7 wagers each, fit well within {limit} bytes). Split the batch and send the parts."
    )


class PitJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        request = (parser_context or {}).get("request")
        if request is not None:
            try:
                size = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                size = 0
            if size > settings.PIT_API_MAX_BODY_BYTES:
                raise too_large(size)
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError("JSON parse error - the body nests too deeply.") from None
