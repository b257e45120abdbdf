from django.apps import AppConfig


class ArchiveConfig(AppConfig):
    """PostgreSQL's month partitions of the coups, wagers and ledger: made ahead, archived past retention."""

    name = "pit.archive"
    verbose_name = "Partitions and archives"
