from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FloorConfig(AppConfig):
    """The floor simulator and the demo pit: plays shoes through the same services as the API."""

    name = "pit.floor"
    verbose_name = _("Floor simulator")
