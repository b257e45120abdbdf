"""PostgreSQL: the partitions' ensure function moves rows held by a DEFAULT partition into the
partitions of their months, and only the runtime role (granted by `manage.py migrate`) and the
owner may execute it (pit.core.partitions.ENSURE_SQL). Nothing on SQLite."""

from django.db import migrations

from pit.core.partitions import ensure_function_migration


class Migration(migrations.Migration):
    dependencies = [
        ("archive", "0001_h8_partitions"),
    ]

    operations = [
        # Backwards: the function stays (the one before made partitions only; this one also does that).
        migrations.RunPython(ensure_function_migration, migrations.RunPython.noop),
    ]
