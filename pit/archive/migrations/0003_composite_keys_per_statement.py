"""PostgreSQL: wager -> coup and entry -> wager, keys on (id, gaming_day) into partitioned tables,
checked once per inserting statement over the rows it inserted instead of as foreign keys, which
look each row up alone through the partitioned table at commit (pit.core.partitions,
`composite_key_check_sql`); the ensure function gives new partitions the same checks. Nothing on
SQLite."""

from django.db import migrations

from pit.core.partitions import composite_keys_migration


class Migration(migrations.Migration):
    dependencies = [
        ("archive", "0002_h4_ensure_moves_default_rows"),
    ]

    operations = [
        # Backwards: the checks stay (they refuse what the foreign keys refused).
        migrations.RunPython(composite_keys_migration, migrations.RunPython.noop),
    ]
