"""The fields every chained fact model declares last (`chain_fields()`); taking a position in a
shoe's chain computes the row's hash (pit.records.links). The format itself (which rows, their
canonical form, their hash) is pit.records.canonical, whose names are also importable from here.
"""

from django.db import models
from django.utils.translation import gettext_lazy as _

from pit.records.canonical import (
    FORMAT,
    SPEC_BY_LABEL,
    SPECS,
    ChainSpec,
    canonical,
    genesis,
    row_hash,
    row_hasher,
    values_of,
)
from pit.records.links import chain_link

__all__ = [
    "FORMAT",
    "SPECS",
    "SPEC_BY_LABEL",
    "ChainSeqField",
    "ChainSpec",
    "canonical",
    "chain_fields",
    "genesis",
    "row_hash",
    "row_hasher",
    "values_of",
]


class ChainSeqField(models.PositiveIntegerField):
    """A fact row's position in its shoe's chain; taking it computes the row's `chain_hash`.

    Django calls a field's `pre_save` on every INSERT it compiles (save, create, bulk_create, and
    `pit.shoes.persistence.rows_insert`), after the fields declared before it, `recorded_at`
    included, have their final values. So every insert path of a chained model is chained without
    knowing it, and a batch computes its hashes in memory as the rows are built (see
    `pit.records.links.records_chain`). Declare it after every field of the model's spec.
    """

    def pre_save(self, model_instance, add):
        if add and getattr(model_instance, self.attname) is None:
            spec = SPEC_BY_LABEL.get(model_instance._meta.label)
            if spec is not None:
                chain_link(model_instance, spec)
        return getattr(model_instance, self.attname)


def chain_fields() -> tuple[models.Field, models.Field]:
    """The two fields every chained model declares last: `chain_seq, chain_hash = chain_fields()`."""
    return (
        ChainSeqField(
            null=True,
            blank=True,
            editable=False,
            verbose_name=_("chain position"),
            help_text=_("Position in the shoe's hash chain."),
        ),
        # Nullable, no default: adding the columns is a plain ALTER TABLE ADD COLUMN on SQLite too,
        # where a default would rebuild the table and drop its insert-only triggers.
        models.CharField(
            max_length=64,
            null=True,
            blank=True,
            editable=False,  # noqa: DJ001
            verbose_name=_("chain hash"),
            help_text=_("SHA-256 of the previous row's hash and this row's canonical form."),
        ),
    )
