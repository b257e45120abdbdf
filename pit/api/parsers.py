"""The API's one parser: JSON, within the body limit, and a 400 (never a 500) for JSON that nests too
deeply for the parser. A body over the limit is a 413 naming it in bytes and in coups. A key given
twice in one object is a 400 naming its path (`wagers[0].amount`): JSON readers differ on which one
wins, so neither does here. Numbers with a point or an exponent are read as Decimal (never a float,
so `1e400` is not infinity); no field of the API takes one, and each says so by name."""

import codecs
import json
from decimal import Decimal

from django.conf import settings
from django.utils.translation import gettext
from rest_framework import exceptions, status
from rest_framework.parsers import JSONParser, get_encoding  # type: ignore[attr-defined]
from rest_framework.utils.json import strict_constant

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
        duplicated: list[_Duplicated] = []

        def pairs_hook(pairs: list[tuple[str, object]]) -> dict:
            value = dict(pairs)
            if len(value) != len(pairs):
                value = _Duplicated(value)
                value.keys_twice = sorted({key for key, _ in pairs if sum(1 for other, _ in pairs if other == key) > 1})
                duplicated.append(value)
            return value

        try:
            decoded = codecs.getreader(get_encoding(parser_context or {}))(stream)
            data = json.load(decoded, object_pairs_hook=pairs_hook, parse_float=Decimal, parse_constant=strict_constant)
        except RecursionError:
            raise exceptions.ParseError(gettext("JSON parse error - the body nests too deeply.")) from None
        except ValueError as exc:
            raise exceptions.ParseError(gettext("JSON parse error - {value}").format(value=str(exc)[:200])) from None
        if duplicated:
            raise exceptions.ValidationError(duplicate_keys(data))
        return data


class _Duplicated(dict):
    """An object of the body that gave a key more than once; `keys_twice` names them."""

    keys_twice: list[str]


def duplicate_keys(data, path: str = "") -> dict[str, list[str]]:
    """Each key given twice in an object of `data`, by its path as the errors name fields."""
    errors: dict[str, list[str]] = {}
    if isinstance(data, dict):
        for key in getattr(data, "keys_twice", ()):
            where = f"{path}.{key[:40]}" if path else key[:40]
            errors[where] = [gettext("This key is given more than once in its object; send each field once.")]
        for key, value in data.items():
            errors.update(duplicate_keys(value, f"{path}.{key[:40]}" if path else key[:40]))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            errors.update(duplicate_keys(value, f"{path}[{index}]"))
    return errors
