"""Pages of list answers: `?page=2&page_size=200` (at most 1000 a page)."""

from rest_framework.pagination import PageNumberPagination


class PitPagination(PageNumberPagination):
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 1000
