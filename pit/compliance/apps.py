from django.apps import AppConfig


class ComplianceConfig(AppConfig):
    """Rule violations found in dealt coups, shoes and settlements, and their review by pit bosses."""

    name = "pit.compliance"
    verbose_name = "Rule violations"
