from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LedgerConfig(AppConfig):
    """The append-only commission ledger, commission box counts and their reconciliation."""

    name = "pit.ledger"
    verbose_name = _("Commission ledger")
