"""The dashboard's own writes: a shift note."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext as _

from pit.core.gaming_day import gaming_day_bounds, gaming_day_for
from pit.dashboard.models import ShiftNote


def shift_of(moment: dt.datetime) -> tuple[dt.date, int]:
    """(gaming day, shift from 1) of a moment: shifts of PIT_ACCOUNTING_SHIFT_HOURS from the day's start."""
    day = gaming_day_for(moment)
    start, _end = gaming_day_bounds(day)
    return day, int((moment - start).total_seconds() // 3600) // settings.PIT_ACCOUNTING_SHIFT_HOURS + 1


def shift_before(day: dt.date, shift: int) -> tuple[dt.date, int]:
    if shift > 1:
        return day, shift - 1
    return day - dt.timedelta(days=1), 24 // settings.PIT_ACCOUNTING_SHIFT_HOURS


def shift_note_write(*, text: str, user, table=None, now: dt.datetime | None = None) -> ShiftNote:
    """A note for the next shift, stamped with the shift it is written in."""
    text = (text or "").strip()
    if not text:
        raise ValidationError({"text": _("A shift note needs its text.")})
    day, shift = shift_of(now or timezone.now())
    return ShiftNote.objects.create(gaming_day=day, shift=shift, table=table, text=text, written_by=user)
