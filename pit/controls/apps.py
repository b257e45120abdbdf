from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ControlsConfig(AppConfig):
    """The pit's internal controls: card custody, sensitive keys and the shift handover."""

    name = "pit.controls"
    verbose_name = _("Internal controls")
