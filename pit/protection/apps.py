from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ProtectionConfig(AppConfig):
    """Game protection: patterns across coups and shoes (a replayed or unshuffled shoe) found as rule
    violations for surveillance and pit bosses to review."""

    name = "pit.protection"
    verbose_name = _("Game protection")
