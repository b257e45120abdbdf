"""The audit trail is itself a record: its events are insert-only (pit.core.immutable)."""

from django.db import migrations

from pit.core.immutable import ProtectFacts


class Migration(migrations.Migration):
    dependencies = [("paytables", "0002_audit_trail")]

    operations = [ProtectFacts("PaytableConfigurationAuditEvent")]
