from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ProgressivesConfig(AppConfig):
    """Progressive meters: a side bet's jackpot over a bank of tables, fed by its recorded wagers."""

    name = "pit.progressives"
    verbose_name = _("Progressive meters")
