"""Shoes, coups and wagers are facts of record: insert-only in the database (pit.core.immutable).
A shoe's close and its running counters are the only columns that change after it is started."""

from django.db import migrations

from pit.core.immutable import ProtectFacts


class Migration(migrations.Migration):
    dependencies = [("shoes", "0002_shoe_close_recorded_at")]

    operations = [
        ProtectFacts(
            "Shoe",
            updatable=("status", "closed_at", "close_recorded_at", "cards_seen", "cards_dealt", "coups_recorded"),
        ),
        ProtectFacts("Coup"),
        ProtectFacts("Wager"),
    ]
