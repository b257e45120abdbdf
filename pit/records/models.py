"""The head of each shoe's hash chain: its length and last hash, so the next row links in one read."""

from django.db import models


class ChainHead(models.Model):
    """Where a shoe's chain ends now. Advanced under the shoe's lock by whoever inserts a fact row.

    Not itself evidence: `verify_records` recomputes the chains from the rows and compares the
    end with this head (a row removed from the end shows here); the heads published in the
    reports pin it for an outsider.
    """

    shoe = models.OneToOneField("shoes.Shoe", on_delete=models.PROTECT, primary_key=True, related_name="chain_head")
    length = models.PositiveIntegerField()
    head = models.CharField(max_length=64)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["shoe"]

    def __str__(self) -> str:
        return f"chain of shoe {self.shoe_id}: {self.length} rows, head {self.head[:12]}"
