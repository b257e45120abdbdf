"""Patrons and who sits where: the player-club card, the patron's versions and exclusions, seat
sessions with their pauses, identifications and ends, and the chips that come to and leave a seat.

Every row is a fact of record (insert-only): a patron's details change by a new version, a session
ends by a stand-up event, a mistaken buy-in is reversed by a reversing record with a reason.
Ratings (pit.ratings) are computed from these rows and the wagers; nothing here is typed twice.
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from pit.core.immutable import Fact
from pit.core.models import Recorded


class Tier(models.Model):
    """A player-club tier (e.g. Gold), with the colour its seats show on the dashboard. Configuration,
    not a fact: a tier's comp reinvestment rate is versioned in pit.ratings."""

    code = models.SlugField(max_length=20, unique=True, verbose_name=_("code"))
    name = models.CharField(max_length=60, verbose_name=_("name"))
    colour = models.CharField(
        max_length=7, default="#888888", help_text=_("CSS colour, e.g. #d4af37."), verbose_name=_("colour")
    )
    rank = models.PositiveSmallIntegerField(
        default=0, help_text=_("Higher ranks are better tiers."), verbose_name=_("rank")
    )

    class Meta:
        verbose_name = _("tier")
        verbose_name_plural = _("tiers")
        ordering = ["-rank", "code"]

    def __str__(self) -> str:
        return self.name


class Patron(Recorded, Fact):
    """A patron, known by the casino's player-club card number (the key floor systems send). What the
    casino knows of the patron (name, tier, nationality, status) is in its versions; the latest stands."""

    card_number = models.CharField(max_length=32, unique=True, verbose_name=_("card number"))

    class Meta:
        verbose_name = _("patron")
        verbose_name_plural = _("patrons")
        ordering = ["card_number"]
        permissions = [
            ("view_patron_personal", "Can see patrons' personal data (name, nationality)"),
            ("record_patron", "Can enrol a patron and record new versions of a patron's details"),
        ]

    def __str__(self) -> str:
        return self.card_number


class PatronStatus(models.TextChoices):
    ACTIVE = "active", _("Active")
    SUSPENDED = "suspended", _("Suspended (card not to be rated)")
    CLOSED = "closed", _("Closed (account closed)")


class PatronVersion(Recorded, Fact):
    """The patron's details from `recorded_at` on, until the next version."""

    patron = models.ForeignKey(Patron, on_delete=models.PROTECT, related_name="versions", verbose_name=_("patron"))
    name = models.CharField(max_length=120, verbose_name=_("name"))
    tier = models.ForeignKey(Tier, on_delete=models.PROTECT, related_name="+", verbose_name=_("tier"))
    nationality = models.CharField(
        max_length=2, help_text=_("ISO 3166-1 alpha-2 country code, e.g. MO, CN, HK."), verbose_name=_("nationality")
    )
    status = models.CharField(
        max_length=9, choices=PatronStatus.choices, default=PatronStatus.ACTIVE, verbose_name=_("status")
    )
    reason = models.CharField(
        max_length=200,
        blank=True,
        help_text=_("Why the details changed (empty at enrolment)."),
        verbose_name=_("reason"),
    )

    class Meta:
        verbose_name = _("patron version")
        verbose_name_plural = _("patron versions")
        ordering = ["patron", "-recorded_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=PatronStatus.values), name="patron_version_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.patron.card_number} from {self.recorded_at:%Y-%m-%d %H:%M}"


class ExclusionKind(models.TextChoices):
    SELF = "self", _("Self-exclusion")
    TRESPASS = "trespass", _("Trespass (barred by the casino)")
    REGULATORY = "regulatory", _("Regulatory exclusion")


class Exclusion(Recorded, Fact):
    """The patron may not play from `starts_at` until `ends_at` (empty: for life). Ended early only by
    a new exclusion record that says so (`lifts`), never by editing this one."""

    patron = models.ForeignKey(Patron, on_delete=models.PROTECT, related_name="exclusions", verbose_name=_("patron"))
    kind = models.CharField(max_length=10, choices=ExclusionKind.choices, verbose_name=_("kind"))
    starts_at = models.DateTimeField(verbose_name=_("starts at"))
    ends_at = models.DateTimeField(
        null=True, blank=True, help_text=_("Empty: a lifetime exclusion."), verbose_name=_("ends at")
    )
    reason = models.CharField(max_length=200, verbose_name=_("reason"))
    lifts = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="lifted_by",
        help_text=_("The exclusion this record ends early (by order of whoever may lift it)."),
        verbose_name=_("lifts"),
    )

    class Meta:
        verbose_name = _("exclusion")
        verbose_name_plural = _("exclusions")
        ordering = ["patron", "-starts_at"]
        permissions = [("record_exclusion", "Can record an exclusion of a patron")]
        constraints = [
            models.CheckConstraint(condition=models.Q(kind__in=ExclusionKind.values), name="exclusion_kind_valid"),
            models.CheckConstraint(
                condition=models.Q(ends_at__isnull=True) | models.Q(ends_at__gt=models.F("starts_at")),
                name="exclusion_ends_after_start",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.patron.card_number}: {self.get_kind_display()}"


class SeatSession(Recorded, Fact):
    """A player at a table's seat from `started_at` (sit-down) until the session's stand-up event.
    `patron` empty: an unrated player, described; identified later by a SessionIdentification."""

    table = models.ForeignKey(
        "tables.Table", on_delete=models.PROTECT, related_name="seat_sessions", verbose_name=_("table")
    )
    seat = models.PositiveSmallIntegerField(verbose_name=_("seat"))
    patron = models.ForeignKey(
        Patron, null=True, blank=True, on_delete=models.PROTECT, related_name="sessions", verbose_name=_("patron")
    )
    description = models.CharField(
        max_length=200,
        blank=True,
        help_text=_("An unrated player: what the pit sees (e.g. 'man, grey suit')."),
        verbose_name=_("description"),
    )
    started_at = models.DateTimeField(db_index=True, verbose_name=_("started at"))
    gaming_day = models.DateField(db_index=True, verbose_name=_("gaming day"))

    class Meta:
        verbose_name = _("seat session")
        verbose_name_plural = _("seat sessions")
        ordering = ["table", "seat", "-started_at"]
        permissions = [("record_seatsession", "Can seat, pause, resume and stand players")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(patron__isnull=False) | ~models.Q(description=""),
                name="seat_session_patron_or_description",
            ),
            models.UniqueConstraint(fields=["table", "seat", "started_at"], name="seat_session_unique_start"),
        ]

    def __str__(self) -> str:
        who = self.patron.card_number if self.patron is not None else self.description
        return f"{self.table.code} seat {self.seat}: {who}"


class SessionEventKind(models.TextChoices):
    PAUSE = "pause", _("Break (the seat is kept)")
    RESUME = "resume", _("Back from a break")
    STAND = "stand", _("Stand-up (the session ends)")


class SessionEvent(Recorded, Fact):
    """A pause, a resume or the stand-up of a session, at `at`."""

    session = models.ForeignKey(SeatSession, on_delete=models.PROTECT, related_name="events", verbose_name=_("session"))
    kind = models.CharField(max_length=6, choices=SessionEventKind.choices, verbose_name=_("kind"))
    at = models.DateTimeField(verbose_name=_("at"))

    class Meta:
        verbose_name = _("session event")
        verbose_name_plural = _("session events")
        ordering = ["session", "at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(kind__in=SessionEventKind.values), name="session_event_kind_valid"
            ),
            models.UniqueConstraint(
                fields=["session"], condition=models.Q(kind="stand"), name="session_event_one_stand"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.session}: {self.kind} at {self.at:%H:%M}"


class SessionIdentification(Recorded, Fact):
    """An unrated session identified later as `patron`'s, by whom and why (attributable)."""

    session = models.OneToOneField(
        SeatSession, on_delete=models.PROTECT, related_name="identification", verbose_name=_("session")
    )
    patron = models.ForeignKey(
        Patron, on_delete=models.PROTECT, related_name="identified_sessions", verbose_name=_("patron")
    )
    reason = models.CharField(max_length=200, verbose_name=_("reason"))

    class Meta:
        verbose_name = _("session identification")
        verbose_name_plural = _("session identifications")
        ordering = ["-recorded_at"]

    def __str__(self) -> str:
        return f"{self.session} is {self.patron.card_number}"


class BuyInKind(models.TextChoices):
    CASH = "cash", _("Cash at the seat")
    CHIPS = "chips", _("Chips brought from another table or the cage")
    MARKER = "marker", _("Marker (credit) at the seat")


class BuyIn(Recorded, Fact):
    """Money or chips a player brought to the seat. A mistaken one is reversed by a record with
    `reverses` and a reason (its amount is the reversed one's, never edited)."""

    session = models.ForeignKey(
        SeatSession, on_delete=models.PROTECT, related_name="buy_ins", verbose_name=_("session")
    )
    kind = models.CharField(max_length=6, choices=BuyInKind.choices, verbose_name=_("kind"))
    currency = models.CharField(max_length=3, verbose_name=_("currency"))
    amount_minor = models.BigIntegerField(verbose_name=_("amount minor"))
    at = models.DateTimeField(verbose_name=_("at"))
    reverses = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="reversed_by", verbose_name=_("reverses")
    )
    reason = models.CharField(
        max_length=200, blank=True, help_text=_("Why a reversal was recorded."), verbose_name=_("reason")
    )

    class Meta:
        verbose_name = _("buy in")
        verbose_name_plural = _("buy ins")
        ordering = ["session", "at", "id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(kind__in=BuyInKind.values), name="buy_in_kind_valid"),
            models.CheckConstraint(condition=models.Q(amount_minor__gt=0), name="buy_in_amount_positive"),
            models.CheckConstraint(
                condition=models.Q(reverses__isnull=True) | ~models.Q(reason=""), name="buy_in_reversal_has_reason"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.session}: {self.get_kind_display()} {self.amount_minor} {self.currency}"


class WalkKind(models.TextChoices):
    COUNTED = "counted", _("Counted")
    ESTIMATED = "estimated", _("Estimated")


class ChipsWalked(Recorded, Fact):
    """Chips the player took away from the seat (at stand-up, or when leaving for a break), counted or
    estimated. Reversed like a buy-in."""

    session = models.ForeignKey(
        SeatSession, on_delete=models.PROTECT, related_name="chips_walked", verbose_name=_("session")
    )
    how = models.CharField(max_length=9, choices=WalkKind.choices, verbose_name=_("how"))
    currency = models.CharField(max_length=3, verbose_name=_("currency"))
    amount_minor = models.BigIntegerField(verbose_name=_("amount minor"))
    at = models.DateTimeField(verbose_name=_("at"))
    reverses = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="reversed_by", verbose_name=_("reverses")
    )
    reason = models.CharField(
        max_length=200, blank=True, help_text=_("Why a reversal was recorded."), verbose_name=_("reason")
    )

    class Meta:
        verbose_name = _("chips walked")
        verbose_name_plural = _("chips walked")
        ordering = ["session", "at", "id"]
        verbose_name_plural = _("chips walked")
        constraints = [
            models.CheckConstraint(condition=models.Q(how__in=WalkKind.values), name="chips_walked_how_valid"),
            models.CheckConstraint(condition=models.Q(amount_minor__gte=0), name="chips_walked_amount_not_negative"),
            models.CheckConstraint(
                condition=models.Q(reverses__isnull=True) | ~models.Q(reason=""),
                name="chips_walked_reversal_has_reason",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.session}: walked {self.amount_minor} {self.currency}"


class PatronLook(Fact):
    """A member of staff looked at a patron (the patron's admin page, an API lookup): the audit event
    of every look, with whether personal data was shown. Insert-only like every fact."""

    patron = models.ForeignKey(Patron, on_delete=models.PROTECT, related_name="looks", verbose_name=_("patron"))
    looked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("looked by")
    )
    looked_at = models.DateTimeField(auto_now_add=True, db_index=True, verbose_name=_("looked at"))
    where = models.CharField(
        max_length=60, help_text=_("The page or API call, e.g. admin patron page."), verbose_name=_("where")
    )
    personal_shown = models.BooleanField(
        help_text=_("Whether the name and nationality were shown."), verbose_name=_("personal shown")
    )

    class Meta:
        verbose_name = _("patron look")
        verbose_name_plural = _("patron looks")
        ordering = ["-looked_at", "-id"]

    def __str__(self) -> str:
        return f"{self.patron.card_number} looked at by {self.looked_by} ({self.where})"
