"""The pit's internal controls as insert-only facts (pit.core.immutable.Fact): the custody of
playing cards (decks received into storage, issued to a table for a shoe, returned, cancelled,
destroyed, storage counts), sensitive keys (their access lists, each issue and return) and the
shift handover (what the outgoing pit boss hands over, and the incoming one's acceptance).

Storage places and keys are set-up (audited, changed by superusers); every control record is a
fact with who and when. The checks that find lapses are in pit.controls.checks; design:
docs/design/controls.md.
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from pit.accounts.audit import audit_track
from pit.core.immutable import Fact
from pit.core.models import Recorded

# ---------------------------------------------------------------------------------------- cards


@audit_track("StoragePlaceAuditEvent")
class StoragePlace(models.Model):
    """A locked place where decks are kept before and after use (the card room, a pit podium)."""

    code = models.SlugField(_("code"), max_length=20, unique=True)
    name = models.CharField(_("name"), max_length=100)

    class Meta:
        ordering = ["code"]
        verbose_name = _("card storage place")
        verbose_name_plural = _("card storage places")

    def __str__(self) -> str:
        return self.code


class Deck(Recorded, Fact):
    """A deck received into storage, signed by two people (N.J.A.C. 13:69E-1.18: cards received
    are logged by two employees). Its later movements are `DeckIssue` and `DeckEvent` rows."""

    serial = models.CharField(_("serial"), max_length=40, unique=True, help_text=_("The deck's number on its seal."))
    lot = models.CharField(_("lot"), max_length=40, blank=True, help_text=_("The delivery or invoice it came in."))
    storage = models.ForeignKey(StoragePlace, on_delete=models.PROTECT, related_name="decks", verbose_name=_("storage"))
    received_at = models.DateTimeField(_("received at"), db_index=True)
    received_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("received by")
    )
    second_signer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("second signer")
    )

    class Meta:
        ordering = ["received_at", "serial"]
        verbose_name = _("deck received")
        verbose_name_plural = _("decks received")
        permissions = [("record_deck", "Can record decks received, issued, returned, cancelled or destroyed")]
        constraints = [
            models.CheckConstraint(condition=~models.Q(received_by=models.F("second_signer")), name="deck_two_signers"),
            models.CheckConstraint(condition=~models.Q(serial=""), name="deck_serial_not_empty"),
        ]

    def __str__(self) -> str:
        return f"deck {self.serial}"


class DeckIssue(Recorded, Fact):
    """A deck issued to a table for a shoe. A deck is issued once: a second issue is recorded as
    it happened and is a `deck_issued_twice` finding."""

    deck = models.ForeignKey(Deck, on_delete=models.PROTECT, related_name="issues", verbose_name=_("deck"))
    shoe = models.ForeignKey("shoes.Shoe", on_delete=models.PROTECT, related_name="+", verbose_name=_("shoe"))
    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="+", verbose_name=_("table"))
    issued_at = models.DateTimeField(_("issued at"), db_index=True)
    issued_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("issued by")
    )
    taken_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("taken by"),
        help_text=_("Who signed for the deck at the table."),
    )

    class Meta:
        ordering = ["issued_at", "id"]
        verbose_name = _("deck issued")
        verbose_name_plural = _("decks issued")
        constraints = [
            models.CheckConstraint(condition=~models.Q(issued_by=models.F("taken_by")), name="deck_issue_two_signers"),
        ]
        indexes = [models.Index(fields=["shoe"], name="deck_issue_shoe")]

    def __str__(self) -> str:
        return f"deck {self.deck.serial} to {self.table.code}"


class DeckEventKind(models.TextChoices):
    RETURNED = "returned", _("Returned to storage")
    CANCELLED = "cancelled", _("Cancelled (marked unusable)")
    DESTROYED = "destroyed", _("Destroyed")


WITNESSED = (DeckEventKind.CANCELLED, DeckEventKind.DESTROYED)


class DeckEvent(Recorded, Fact):
    """A deck back from a table into storage, cancelled, or destroyed: the last two with a witness."""

    deck = models.ForeignKey(Deck, on_delete=models.PROTECT, related_name="events", verbose_name=_("deck"))
    kind = models.CharField(_("kind"), max_length=10, choices=DeckEventKind.choices)
    at = models.DateTimeField(_("at"), db_index=True)
    storage = models.ForeignKey(
        StoragePlace,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("storage"),
        help_text=_("Where a returned deck is kept; where a deck was cancelled or destroyed."),
    )
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("by"))
    witness = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("witness"),
    )
    note = models.CharField(_("note"), max_length=200, blank=True)

    class Meta:
        ordering = ["at", "id"]
        verbose_name = _("deck movement")
        verbose_name_plural = _("deck movements")
        constraints = [
            models.CheckConstraint(condition=models.Q(kind__in=DeckEventKind.values), name="deck_event_kind_valid"),
            models.UniqueConstraint(
                fields=["deck", "kind"], condition=models.Q(kind__in=WITNESSED), name="deck_event_once_per_kind"
            ),
            models.CheckConstraint(
                condition=~models.Q(kind__in=WITNESSED)
                | (models.Q(witness__isnull=False) & ~models.Q(witness=models.F("by"))),
                name="deck_event_witnessed",
            ),
        ]

    def __str__(self) -> str:
        return f"deck {self.deck.serial} {self.kind}"


class StorageCount(Recorded, Fact):
    """Decks counted in a storage place (the daily reconciliation's physical count), by two people."""

    storage = models.ForeignKey(StoragePlace, on_delete=models.PROTECT, related_name="+", verbose_name=_("storage"))
    counted_at = models.DateTimeField(_("counted at"), db_index=True)
    decks = models.PositiveIntegerField(_("decks counted"))
    counted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("counted by")
    )
    witness = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("witness")
    )

    class Meta:
        ordering = ["counted_at", "id"]
        verbose_name = _("card storage count")
        verbose_name_plural = _("card storage counts")
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(counted_by=models.F("witness")), name="storage_count_two_signers"
            )
        ]

    def __str__(self) -> str:
        return f"{self.storage.code} {self.decks} decks at {self.counted_at:%Y-%m-%d %H:%M}"


# ---------------------------------------------------------------------------------------- keys


class KeyKind(models.TextChoices):
    DROP_BOX_RELEASE = "drop_box_release", _("Drop box release")
    TABLE_INVENTORY = "table_inventory", _("Table inventory")
    CARD_STORAGE = "card_storage", _("Card storage")
    PROGRESSIVE_CONTROLLER = "progressive_controller", _("Progressive controller")


@audit_track("SensitiveKeyAuditEvent")
class SensitiveKey(models.Model):
    """A sensitive key: who may draw it is its access list (`KeyAccessList`, versioned)."""

    code = models.SlugField(_("code"), max_length=30, unique=True, help_text=_("The tag on the key ring."))
    kind = models.CharField(_("kind"), max_length=24, choices=KeyKind.choices)
    name = models.CharField(_("name"), max_length=100)
    max_out_minutes = models.PositiveIntegerField(
        _("minutes out at most"),
        null=True,
        blank=True,
        help_text=_("Empty: PIT_CONTROLS_KEY_MAX_OUT_MINUTES."),
    )

    class Meta:
        ordering = ["code"]
        verbose_name = _("sensitive key")
        verbose_name_plural = _("sensitive keys")
        permissions = [("record_keyissue", "Can record a key issued or returned")]
        constraints = [models.CheckConstraint(condition=models.Q(kind__in=KeyKind.values), name="key_kind_valid")]

    def __str__(self) -> str:
        return self.code


class KeyAccessList(Recorded, Fact):
    """Who may draw a key from `effective_from` on: a new version replaces the list, never edits it."""

    key = models.ForeignKey(SensitiveKey, on_delete=models.PROTECT, related_name="access_lists", verbose_name=_("key"))
    version = models.PositiveIntegerField(_("version"))
    effective_from = models.DateTimeField(_("effective from"))
    holders = models.JSONField(_("holders"), help_text=_("The ids of the users who may draw the key, ascending."))
    set_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("set by"),
    )

    class Meta:
        ordering = ["key", "-version"]
        verbose_name = _("key access list")
        verbose_name_plural = _("key access lists")
        constraints = [
            models.UniqueConstraint(fields=["key", "version"], name="key_access_list_version_unique"),
            models.CheckConstraint(condition=models.Q(version__gte=1), name="key_access_list_version_from_one"),
        ]

    def __str__(self) -> str:
        return f"{self.key.code} v{self.version}"


class KeyIssue(Recorded, Fact):
    """A key drawn: by whom, when, for which table, and when it is due back."""

    key = models.ForeignKey(SensitiveKey, on_delete=models.PROTECT, related_name="issues", verbose_name=_("key"))
    table = models.ForeignKey(
        "tables.Table",
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("table"),
        help_text=_("The table it is drawn for."),
    )
    issued_to = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("issued to")
    )
    issued_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("issued by")
    )
    issued_at = models.DateTimeField(_("issued at"), db_index=True)
    due_at = models.DateTimeField(_("due back at"))
    purpose = models.CharField(_("purpose"), max_length=200)

    class Meta:
        ordering = ["issued_at", "id"]
        verbose_name = _("key issued")
        verbose_name_plural = _("keys issued")
        constraints = [
            models.CheckConstraint(condition=models.Q(due_at__gt=models.F("issued_at")), name="key_issue_due_after")
        ]

    def __str__(self) -> str:
        return f"{self.key.code} to {self.issued_to} at {self.issued_at:%Y-%m-%d %H:%M}"


class KeyReturn(Recorded, Fact):
    """A key back in its box."""

    issue = models.OneToOneField(KeyIssue, on_delete=models.PROTECT, related_name="returned", verbose_name=_("issue"))
    returned_at = models.DateTimeField(_("returned at"))
    returned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("returned by")
    )
    received_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("received by")
    )

    class Meta:
        ordering = ["returned_at", "id"]
        verbose_name = _("key returned")
        verbose_name_plural = _("keys returned")

    def __str__(self) -> str:
        return f"{self.issue.key.code} back at {self.returned_at:%Y-%m-%d %H:%M}"


# ---------------------------------------------------------------------------------------- handover


class ShiftHandover(Recorded, Fact):
    """What the outgoing pit boss hands over at a shift change: each section of
    pit.controls.handover.HANDOVER_SECTIONS as it stood (a snapshot, JSON), and a note."""

    shift_change_at = models.DateTimeField(_("shift change"), db_index=True)
    gaming_day = models.DateField(_("gaming day"), db_index=True)
    handed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("handed over by")
    )
    handed_at = models.DateTimeField(_("handed over at"))
    sections = models.JSONField(_("sections"))
    note = models.TextField(_("note"), blank=True)

    class Meta:
        ordering = ["-shift_change_at", "id"]
        verbose_name = _("shift handover")
        verbose_name_plural = _("shift handovers")
        permissions = [("record_shifthandover", "Can hand over or accept a shift")]
        constraints = [
            models.UniqueConstraint(fields=["shift_change_at", "handed_by"], name="shift_handover_once_per_boss")
        ]

    def __str__(self) -> str:
        return f"handover at {self.shift_change_at:%Y-%m-%d %H:%M} by {self.handed_by}"


class HandoverAcceptance(Recorded, Fact):
    """The incoming pit boss accepts a handover (another person than who handed it over)."""

    handover = models.OneToOneField(
        ShiftHandover, on_delete=models.PROTECT, related_name="acceptance", verbose_name=_("handover")
    )
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("accepted by")
    )
    accepted_at = models.DateTimeField(_("accepted at"))
    note = models.TextField(_("note"), blank=True)

    class Meta:
        ordering = ["-accepted_at", "id"]
        verbose_name = _("handover acceptance")
        verbose_name_plural = _("handover acceptances")

    def __str__(self) -> str:
        return f"accepted by {self.accepted_by} at {self.accepted_at:%Y-%m-%d %H:%M}"
