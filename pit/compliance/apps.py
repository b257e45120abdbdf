from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ComplianceConfig(AppConfig):
    """Rule violations found in dealt coups, shoes and settlements, and their review by pit bosses."""

    name = "pit.compliance"
    verbose_name = _("Rule violations")
