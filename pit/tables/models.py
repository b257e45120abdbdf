"""Baccarat tables, their bet limits and their open/close events."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from pit.accounts.audit import audit_track
from pit.core.immutable import Fact
from pit.core.models import Recorded


class Game(models.TextChoices):
    BIG = "big", _("Big baccarat")
    MIDI = "midi", _("Midi baccarat")
    MINI = "mini", _("Mini baccarat")


GAME_NAMES = dict(Game.choices)


class TableStatus(models.TextChoices):
    OPEN = "open", _("Open")
    CLOSED = "closed", _("Closed")


def default_seats() -> list[int]:
    """Seats 1-7 with no seat 4, as most mini tables are numbered."""
    return [1, 2, 3, 5, 6, 7, 8]


@audit_track("TableAuditEvent")
class Table(models.Model):
    code = models.SlugField(
        max_length=20, unique=True, help_text=_("Short code on the floor plan, e.g. BB1."), verbose_name=_("code")
    )
    name = models.CharField(max_length=100, verbose_name=_("name"))
    game = models.CharField(max_length=8, choices=Game.choices, verbose_name=_("game"))
    seats = models.JSONField(
        default=default_seats, help_text=_("Seat numbers in use, e.g. [1, 2, 3, 5, 6, 7, 8]."), verbose_name=_("seats")
    )
    squeeze = models.BooleanField(
        default=False, help_text=_("Players may squeeze the cards."), verbose_name=_("squeeze")
    )
    status = models.CharField(
        max_length=8, choices=TableStatus.choices, default=TableStatus.CLOSED, verbose_name=_("status")
    )
    currency = models.CharField(max_length=3, default=settings.PIT_DEFAULT_CURRENCY, verbose_name=_("currency"))
    paytable = models.ForeignKey(
        "paytables.PaytableConfiguration",
        on_delete=models.PROTECT,
        related_name="tables",
        help_text=_("The paytable configuration in force for new coups."),
        verbose_name=_("paytable"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        ordering = ["code"]
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        constraints = [
            models.CheckConstraint(condition=models.Q(status__in=TableStatus.values), name="table_status_valid"),
            models.CheckConstraint(condition=models.Q(game__in=Game.values), name="table_game_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.code} {self.name}"


@audit_track("TableLimitAuditEvent")
class TableLimit(models.Model):
    """Minimum and maximum for one bet type at a table, in minor units of the table's currency."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="limits", verbose_name=_("table"))
    bet = models.CharField(max_length=20, verbose_name=_("bet"))
    minimum_minor = models.BigIntegerField(verbose_name=_("minimum"))
    maximum_minor = models.BigIntegerField(verbose_name=_("maximum"))

    class Meta:
        verbose_name = _("table limit")
        verbose_name_plural = _("table limits")
        ordering = ["table", "bet"]
        constraints = [
            models.UniqueConstraint(fields=["table", "bet"], name="table_limit_unique_per_bet"),
            models.CheckConstraint(condition=models.Q(minimum_minor__gt=0), name="table_limit_minimum_positive"),
            models.CheckConstraint(
                condition=models.Q(maximum_minor__gte=models.F("minimum_minor")), name="table_limit_max_gte_min"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table.code} {self.bet}"


class TableLimitVersion(Fact):
    """A table's limits as they were set, kept for good (insert-only): every call of
    `table_limits_set` adds one set, all its bets sharing `effective_from`. A coup is judged by the
    set in force when it was dealt: the one with the latest `effective_from` not after its
    `dealt_at`. `TableLimit` holds the set in force now."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="limit_versions", verbose_name=_("table"))
    bet = models.CharField(max_length=20, verbose_name=_("bet"))
    minimum_minor = models.BigIntegerField(verbose_name=_("minimum minor"))
    maximum_minor = models.BigIntegerField(verbose_name=_("maximum minor"))
    effective_from = models.DateTimeField(db_index=True, verbose_name=_("effective from"))
    set_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("set by"),
    )

    class Meta:
        verbose_name = _("table limit version")
        verbose_name_plural = _("table limit versions")
        ordering = ["table", "-effective_from", "bet"]
        constraints = [
            models.UniqueConstraint(fields=["table", "effective_from", "bet"], name="table_limit_version_unique"),
            models.CheckConstraint(condition=models.Q(minimum_minor__gt=0), name="table_limit_version_min_positive"),
            models.CheckConstraint(
                condition=models.Q(maximum_minor__gte=models.F("minimum_minor")), name="table_limit_version_max_gte_min"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table.code} {self.bet} from {self.effective_from:%Y-%m-%d %H:%M}"


class LimitChange(Recorded, Fact):
    """A change of a table's limits as it was announced: when, and when it takes effect. A change
    that raises a minimum or lowers a maximum while players are seated takes effect only after the
    jurisdiction's notice (pit.core.jurisdictions: e.g. COMAR 36.05.03.21, 30 minutes); its limits
    are the `TableLimitVersion` rows of the table from `effective_from`. A fact: insert-only."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="limit_changes", verbose_name=_("table"))
    announced_at = models.DateTimeField(_("announced at"), db_index=True)
    effective_from = models.DateTimeField(_("effective from"))
    tightens = models.BooleanField(_("tightens"), help_text=_("A minimum raised or a maximum lowered for some bet."))
    players_seated = models.BooleanField(
        _("players seated"), help_text=_("Wagers at the table within the continuous-play gap when announced.")
    )
    notice_minutes = models.PositiveIntegerField(_("notice (minutes)"))
    grandfathering = models.BooleanField(
        _("grandfathering"), help_text=_("Seated players keep the minimum they sat down under.")
    )
    jurisdiction = models.CharField(_("jurisdiction"), max_length=20)
    rule = models.CharField(_("rule"), max_length=300)
    set_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("set by"),
    )

    class Meta:
        ordering = ["-announced_at", "-id"]
        verbose_name = _("limit change")
        verbose_name_plural = _("limit changes")
        constraints = [
            models.UniqueConstraint(fields=["table", "effective_from"], name="limit_change_once_per_start"),
            models.CheckConstraint(
                condition=models.Q(effective_from__gte=models.F("announced_at")) | models.Q(notice_minutes=0),
                name="limit_change_effective_after_announced",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table.code} limits from {self.effective_from:%Y-%m-%d %H:%M}"


class TableEventKind(models.TextChoices):
    OPENED = "opened", _("Opened")
    CLOSED = "closed", _("Closed")


class TableEvent(Recorded, Fact):
    """A table opened or closed: the history behind `Table.status`. A fact: insert-only."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="events", verbose_name=_("table"))
    kind = models.CharField(max_length=8, choices=TableEventKind.choices, verbose_name=_("kind"))
    at = models.DateTimeField(verbose_name=_("at"))

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = _("table event")
        verbose_name_plural = _("table events")
        constraints = [
            models.CheckConstraint(condition=models.Q(kind__in=TableEventKind.values), name="table_event_kind_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.table.code} {self.kind} at {self.at:%Y-%m-%d %H:%M}"
