"""Variance investigations: opened on a commission box variance or a flagged win-to-drop, given to
someone with a due date, evidence attached, closed with a conclusion."""

from __future__ import annotations

import datetime as dt

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from .models import InvestigationAttachment, InvestigationStatus, VarianceInvestigation

MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024


def investigation_open(
    *, title: str, assignee, due_on: dt.date, opened_by, reconciliation=None, hold_flag=None
) -> VarianceInvestigation:
    if (reconciliation is None) == (hold_flag is None):
        raise ValidationError({"reconciliation": _("An investigation is of one variance: a reconciliation or a flag.")})
    if not (title or "").strip():
        raise ValidationError({"title": _("Say what is investigated.")})
    return VarianceInvestigation.objects.create(
        title=title.strip(),
        assignee=assignee,
        due_on=due_on,
        opened_by=opened_by,
        reconciliation=reconciliation,
        hold_flag=hold_flag,
    )


@transaction.atomic
def investigation_update(*, investigation: VarianceInvestigation, assignee, due_on: dt.date) -> VarianceInvestigation:
    investigation = VarianceInvestigation.objects.select_for_update().get(pk=investigation.pk)
    if investigation.status != InvestigationStatus.OPEN:
        raise ValidationError({"status": _("A closed investigation is not reassigned.")})
    investigation.assignee, investigation.due_on = assignee, due_on
    investigation.save(update_fields=["assignee", "due_on"])
    return investigation


@transaction.atomic
def investigation_close(*, investigation: VarianceInvestigation, conclusion: str) -> VarianceInvestigation:
    investigation = VarianceInvestigation.objects.select_for_update().get(pk=investigation.pk)
    if investigation.status != InvestigationStatus.OPEN:
        raise ValidationError({"status": _("The investigation is closed already.")})
    if not (conclusion or "").strip():
        raise ValidationError({"conclusion": _("Write what the investigation concluded.")})
    investigation.status = InvestigationStatus.CLOSED
    investigation.conclusion = conclusion.strip()
    investigation.closed_at = timezone.now()
    investigation.save(update_fields=["status", "conclusion", "closed_at"])
    return investigation


def attachment_add(*, investigation: VarianceInvestigation, file, description: str, user) -> InvestigationAttachment:
    if file is None:
        raise ValidationError({"file": _("Choose a file.")})
    if file.size > MAX_ATTACHMENT_BYTES:
        raise ValidationError(
            {
                "file": _("At most %(max_attachment_bytes)s MB a file.")
                % {"max_attachment_bytes": MAX_ATTACHMENT_BYTES // (1024 * 1024)}
            }
        )
    return InvestigationAttachment.objects.create(
        investigation=investigation, file=file, description=(description or "").strip(), uploaded_by=user
    )
