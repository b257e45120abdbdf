from django.apps import AppConfig


class LedgerConfig(AppConfig):
    """The append-only commission ledger, commission box counts and their reconciliation."""

    name = "pit.ledger"
    verbose_name = "Commission ledger"
