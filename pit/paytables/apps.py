from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PaytablesConfig(AppConfig):
    """Paytable configurations: payouts, commission and increments, versioned, with exact house edges."""

    name = "pit.paytables"
    verbose_name = _("Paytables")
