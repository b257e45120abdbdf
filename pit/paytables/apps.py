from django.apps import AppConfig


class PaytablesConfig(AppConfig):
    """Paytable configurations: payouts, commission and increments, versioned, with exact house edges."""

    name = "pit.paytables"
    verbose_name = "Paytables"
