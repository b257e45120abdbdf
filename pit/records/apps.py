from django.apps import AppConfig


class RecordsConfig(AppConfig):
    """Tamper evidence: every fact row hash-chained per shoe, and the verification of the chains."""

    name = "pit.records"
    verbose_name = "Records and integrity"
