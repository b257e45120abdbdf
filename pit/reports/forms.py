"""The filters of a report, parsed the same way for the reports page and the JSON API."""

import datetime as dt

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from pit.core.gaming_day import current_gaming_day
from pit.tables.models import Game, Table

from .catalog import REPORTS
from .definitions import ReportFilters
from .models import CsvHeaders

# No report covers more than this many gaming days (ten years), inline or in the background.
MAX_RANGE_DAYS = 3660
# Dates a casino can mean (the moments bounding a gaming day must exist: 9999-12-31 has no day after).
FIRST_DAY, LAST_DAY = dt.date(1900, 1, 1), dt.date(9998, 12, 31)


class ReportFilterForm(forms.Form):
    """?report=commission&from=2026-11-01&to=2026-11-07&tables=BB1&tables=MB2&game=mini&only_variances=1"""

    report = forms.ChoiceField(choices=[(slug, report.title) for slug, report in REPORTS.items()], label=_("Report"))
    tables = forms.ModelMultipleChoiceField(
        queryset=Table.objects.order_by("code"),
        to_field_name="code",
        required=False,
        label=_("Tables"),
        help_text=_("None selected: every table."),
    )
    game = forms.ChoiceField(choices=[("", _("Every game")), *Game.choices], required=False, label=_("Game"))
    only_variances = forms.BooleanField(
        required=False,
        label=_("Only variances"),
        help_text=_("Commission: only seats whose count differs from the ledger."),
    )
    # CSV only: the header line (XLSX, the PDF and the screen are always in the reader's language).
    headers = forms.ChoiceField(
        choices=CsvHeaders.choices,
        required=False,
        label=_("CSV headers"),
        help_text=_("Systems read the stable names; the values are the same either way."),
    )

    def __init__(self, *args, report: str | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        today = current_gaming_day()
        # "from" is a Python keyword: these two fields are added by name.
        self.fields["from"] = forms.DateField(
            label=_("From gaming day"), initial=today, widget=forms.DateInput(attrs={"type": "date"})
        )
        self.fields["to"] = forms.DateField(
            label=_("To gaming day"), initial=today, widget=forms.DateInput(attrs={"type": "date"})
        )
        self.order_fields(["report", "from", "to", "tables", "game", "only_variances", "headers"])
        if report is not None:
            self.fields["report"].required = False
        self.fixed_report: str | None = report

    def clean(self):
        cleaned = super().clean()
        assert cleaned is not None  # Form.clean returns its cleaned_data
        start, end = cleaned.get("from"), cleaned.get("to")
        for name, day in (("from", start), ("to", end)):
            if day and not FIRST_DAY <= day <= LAST_DAY:
                self.add_error(
                    name,
                    gettext("Gaming days run from %(first)s to %(last)s; %(day)s is outside them.")
                    % {"first": FIRST_DAY, "last": LAST_DAY, "day": day},
                )
                return cleaned
        if start and end:
            if end < start:
                raise ValidationError(
                    {
                        "to": gettext("The range ends (%(end)s) before it starts (%(start)s).")
                        % {"end": end, "start": start}
                    }
                )
            if (end - start).days + 1 > MAX_RANGE_DAYS:
                raise ValidationError(
                    {"to": gettext("A report covers at most %(days)s gaming days.") % {"days": MAX_RANGE_DAYS}}
                )
        return cleaned

    @property
    def csv_headers(self) -> str:
        """The CSV's header line asked for (stable names unless "translated")."""
        return self.cleaned_data.get("headers") or CsvHeaders.MACHINE

    @property
    def definition(self):
        return REPORTS[self.fixed_report or self.cleaned_data["report"]]

    def filters(self) -> ReportFilters:
        data = self.cleaned_data
        return ReportFilters(
            date_from=data["from"],
            date_to=data["to"],
            tables=tuple(sorted(table.code for table in data.get("tables") or ())),
            game=data.get("game") or "",
            only_variances=bool(data.get("only_variances")),
        )


def days_label(filters: ReportFilters) -> str:
    if filters.date_from == filters.date_to:
        return filters.date_from.isoformat()
    return gettext("%(from)s to %(to)s") % {"from": filters.date_from.isoformat(), "to": filters.date_to.isoformat()}
