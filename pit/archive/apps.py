from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ArchiveConfig(AppConfig):
    """PostgreSQL's month partitions of the coups, wagers and ledger: made ahead, archived past retention."""

    name = "pit.archive"
    verbose_name = _("Partitions and archives")
