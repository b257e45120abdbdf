"""Chain the fact rows recorded before the chains existed, per shoe, in the order of the chain
kinds and then of their ids (a database with no facts yet, every new one, writes nothing here).

Runs before the fact tables become insert-only: it is the only UPDATE ever made to these columns.
"""

from django.db import migrations

from pit.records.chain import SPECS, genesis, row_hash


def backfill(apps, schema_editor):
    models = [(spec, apps.get_model(spec.label)) for spec in SPECS]
    if not any(model.objects.filter(chain_seq__isnull=True).exists() for _, model in models):
        return
    ChainHead = apps.get_model("records", "ChainHead")
    Shoe = apps.get_model("shoes", "Shoe")
    for shoe_id in Shoe.objects.order_by("pk").values_list("pk", flat=True):
        length, head = 0, genesis(shoe_id)
        for spec, model in models:
            for row in model.objects.filter(**{spec.shoe_path: shoe_id}).order_by("pk"):
                length += 1
                head = row_hash(head, spec, length, [getattr(row, attname) for attname in spec.fields])
                model.objects.filter(pk=row.pk).update(chain_seq=length, chain_hash=head)
        if length:
            ChainHead.objects.create(shoe_id=shoe_id, length=length, head=head)


class Migration(migrations.Migration):
    dependencies = [
        ("records", "0001_h5_chain_heads"),
        ("shoes", "0003_h5_hash_chain"),
        ("ledger", "0004_h5_hash_chain"),
    ]
    # It writes the chain columns of rows already there: before those tables become insert-only.
    run_before = [("shoes", "0003_h4_facts_insert_only"), ("ledger", "0004_h4_facts_insert_only")]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
