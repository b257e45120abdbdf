"""Pages of list answers: `?page=2&page_size=200` (at most 1000 a page)."""

from typing import Any

from rest_framework.pagination import PageNumberPagination


class PitPagination(PageNumberPagination):
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 1000

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
