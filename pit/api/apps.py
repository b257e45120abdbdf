from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ApiConfig(AppConfig):
    """The REST API for floor systems and staff, under /api/v1/. The only app that imports DRF."""

    name = "pit.api"
    verbose_name = _("API")
