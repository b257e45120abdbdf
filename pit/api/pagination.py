"""Pages of list answers: `?page=2&page_size=200` (at most 1000 a page). Both are read strictly:
ASCII digits only, no sign, no space, within bounds; anything else is a 400 naming the parameter
(`page_size=1e400` is not a page size to ignore)."""

import re
from typing import Any

from django.utils.translation import gettext
from rest_framework import serializers
from rest_framework.pagination import PageNumberPagination

from pit.api.serializers import shown

_WHOLE = re.compile(r"[1-9][0-9]{0,8}", re.ASCII)


def query_whole(params, name: str, *, most: int | None = None) -> int | None:
    """The query parameter `name` as a whole number from 1 (to `most`); None when it is not given."""
    values = params.getlist(name)
    if not values:
        return None
    if len(values) > 1:
        raise serializers.ValidationError({name: [gettext("Give this parameter once.")]})
    value = values[0]
    if not _WHOLE.fullmatch(value):
        raise serializers.ValidationError(
            {
                name: [
                    gettext("Send a whole number from 1 in ASCII digits; {value} is not one.").format(
                        value=shown(value)
                    )
                ]
            }
        )
    number = int(value)
    if most is not None and number > most:
        raise serializers.ValidationError(
            {name: [gettext("Ensure this value is less than or equal to {most}.").format(most=most)]}
        )
    return number


class PitPagination(PageNumberPagination):
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 1000

    def get_page_size(self, request) -> int:
        size = query_whole(request.query_params, self.page_size_query_param, most=self.max_page_size)
        return self.page_size if size is None else size

    def get_page_number(self, request, paginator):
        return query_whole(request.query_params, self.page_query_param) or 1

    def get_paginated_response_schema(self, schema):
        link: dict[str, Any] = {
            "type": "string",
            "nullable": True,
            "format": "uri",
            "description": "The URL of the {} page, with the same filters; null on the {} page.",
        }
        return {
            "type": "object",
            "required": ["count", "next", "previous", "results"],
            "properties": {
                "count": {"type": "integer", "minimum": 0, "description": "Items in all pages."},
                "next": {**link, "description": link["description"].format("next", "last")},
                "previous": {**link, "description": link["description"].format("previous", "first")},
                "results": schema,
            },
        }
