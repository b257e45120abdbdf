"""Query parameters of the API are ASCII where they can hold a number: `int("٣")` is 3 and
`int("²")` raises, so pages, days and deck counts written in other digits would be read as numbers
or fail deep inside a view. One check here covers every parameter of every API view."""

from django.http import JsonResponse
from django.utils.translation import gettext

from pit.api.errors import error_body

API_PREFIX = "/api/"


def _non_ascii_numeral(value: str) -> bool:
    return not value.isascii() and any(not char.isascii() and char.isnumeric() for char in value)


class AsciiNumbersInQueryMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path.startswith(API_PREFIX):
            errors = {
                name: [f"Numbers are ASCII digits (0-9) only; {value[:40]!r} holds other characters."]
                for name, values in request.GET.lists()
                for value in values
                if _non_ascii_numeral(value) or _non_ascii_numeral(name)
            }
            if errors:
                body = error_body(400, "invalid", gettext("The request has errors; see `errors`."), errors)
                return JsonResponse(body, status=400)
        return self.get_response(request)
