"""Rule violations are never deleted and only their review and `cleared_at` change; their audit
events are insert-only (pit.core.immutable)."""

from django.db import migrations

from pit.core.immutable import ProtectFacts


class Migration(migrations.Migration):
    dependencies = [("compliance", "0002_audit_trail")]

    operations = [
        ProtectFacts(
            "RuleViolation",
            updatable=("cleared_at", "status", "status_note", "status_changed_by", "status_changed_at"),
        ),
        ProtectFacts("RuleViolationAuditEvent"),
    ]
