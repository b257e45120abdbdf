"""Query filters of the API's lists (django-filter)."""

import django_filters

from pit.compliance.models import RuleViolation, ViolationStatus


class ViolationFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=ViolationStatus.choices)
    table = django_filters.CharFilter(field_name="table__code", help_text="Table code, e.g. BB1.")
    gaming_day = django_filters.DateFilter()
    code = django_filters.CharFilter(help_text="The engine's violation code, e.g. banker_missed_draw.")

    class Meta:
        model = RuleViolation
        fields = ["status", "table", "gaming_day", "code"]
