"""Who may run which report (plain Django: the admin views and the API's permission class use it).

Accountants and auditors hold `accounts.run_reports` and may run every report. Pit bosses may run
the reports about what they answer for on the floor (table results and violations), not the
commission reports. Floor devices and anonymous users may run none.
"""

from pit.accounts.models import Role
from pit.accounts.roles import PATRON_PERSONAL, RUN_REPORTS

from .catalog import FLOOR, REPORTS
from .definitions import ReportDefinition


def _is_pit_boss(user) -> bool:
    return hasattr(user, "groups") and user.groups.filter(name=Role.PIT_BOSS.value).exists()


def report_allowed(user, report: ReportDefinition) -> bool:
    # Floor devices reach the API as principals that are not staff users: no report for them.
    if not (user and user.is_authenticated and getattr(user, "is_active", False) and getattr(user, "is_staff", False)):
        return False
    if user.has_perm(RUN_REPORTS):
        return True
    return report.audience == FLOOR and _is_pit_boss(user)


def reports_allowed(user) -> list[ReportDefinition]:
    return [report for report in REPORTS.values() if report_allowed(user, report)]


def reads_personal(user) -> bool:
    """Whether `user` may see patrons' personal data (a report's personal columns among it)."""
    return bool(user and user.is_authenticated and user.has_perm(PATRON_PERSONAL))


def gets_personal_columns(user, report: ReportDefinition) -> bool:
    """Whether `user` gets `report` with its personal columns: it has some, and the user may see them."""
    return bool(report.personal_keys) and reads_personal(user)
