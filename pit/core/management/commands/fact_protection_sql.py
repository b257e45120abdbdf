"""`manage.py fact_protection_sql [app_label.Model ...] --vendor postgresql|sqlite`: the SQL that
makes fact tables insert-only (pit.core.immutable.fact_protection_sql), to freeze into a migration.

A new fact table's migration carries its protection as text, never by importing this code (a
migration keeps its meaning when the code changes): generate the SQL for both vendors, save it
beside the migration (`<migration>.postgresql.sql`, `<migration>.sqlite.sql`) and load it there
by `schema_editor.connection.vendor`, as core/0002_facts_insert_only does. Without labels: every
protected model (pit.core.immutable.protected_models).
"""

from typing import Any

from django.apps import apps
from django.core.management.base import CommandParser

from pit.core.arguments import PitCommand, text
from pit.core.immutable import fact_protection_sql, protected_models


class Command(PitCommand):
    help = "Print the SQL making the given models' tables insert-only, for a migration to freeze."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("labels", type=text, nargs="*", help="app_label.Model (default: every protected model)")
        parser.add_argument("--vendor", type=text, choices=("postgresql", "sqlite"), required=True)
        parser.add_argument("--replace", action="store_true", help="drop the triggers first (a table protected before)")

    def handle(self, *args: Any, labels: list[str], vendor: str, replace: bool, **options: Any) -> None:
        fact_models = [apps.get_model(label) for label in labels] if labels else protected_models()
        for statement in fact_protection_sql(vendor, fact_models, replace=replace):
            self.stdout.write(statement.rstrip(";") + ";\n")
