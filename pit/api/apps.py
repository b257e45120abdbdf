from django.apps import AppConfig


class ApiConfig(AppConfig):
    """The REST API for floor systems and staff, under /api/v1/. The only app that imports DRF."""

    name = "pit.api"
    verbose_name = "API"
