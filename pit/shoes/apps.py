from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ShoesConfig(AppConfig):
    """Shoes, the coups dealt from them, and the wagers settled on each coup."""

    name = "pit.shoes"
    verbose_name = _("Shoes and coups")
