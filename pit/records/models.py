"""The head of each shoe's hash chain (its length and last hash, so the next row links in one read)
and the links of every other fact stream."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from pit.core.immutable import Fact


class ChainHead(models.Model):
    """Where a shoe's chain ends now. Advanced under the shoe's lock by whoever inserts a fact row.

    Not itself evidence: `verify_records` recomputes the chains from the rows and compares the
    end with this head (a row removed from the end shows here); the heads published in the
    reports pin it for an outsider.
    """

    shoe = models.OneToOneField(
        "shoes.Shoe", on_delete=models.PROTECT, primary_key=True, related_name="chain_head", verbose_name=_("shoe")
    )
    length = models.PositiveIntegerField(verbose_name=_("length"))
    head = models.CharField(max_length=64, verbose_name=_("head"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("chain head")
        verbose_name_plural = _("chain heads")
        ordering = ["shoe"]

    def __str__(self) -> str:
        return f"chain of shoe {self.shoe_id}: {self.length} rows, head {self.head[:12]}"


class StreamLink(Fact):
    """One row of a stream (a fact model outside the shoes' chains: pit.records.streams) at its
    position in the stream's chain. Insert-only: a stream's head is its last link, so the head only
    ever grows by appending. Written by the sealer (pit.records.services.streams_seal)."""

    stream = models.CharField(max_length=100, help_text=_("The fact model, app_label.Model."), verbose_name=_("stream"))
    seq = models.PositiveBigIntegerField(help_text=_("Position in the stream's chain, from 1."), verbose_name=_("seq"))
    row_id = models.BigIntegerField(help_text=_("The primary key of the row this links."), verbose_name=_("row id"))
    hash = models.CharField(
        max_length=64,
        help_text=_("SHA-256 of the previous link's hash and the row's canonical form."),
        verbose_name=_("hash"),
    )
    sealed_at = models.DateTimeField(db_index=True, verbose_name=_("sealed at"))

    class Meta:
        verbose_name = _("stream link")
        verbose_name_plural = _("stream links")
        ordering = ["stream", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["stream", "seq"], name="stream_link_seq_unique"),
            models.UniqueConstraint(fields=["stream", "row_id"], name="stream_link_row_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.stream} #{self.seq}: row {self.row_id}"
