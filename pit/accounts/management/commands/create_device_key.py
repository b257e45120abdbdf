"""Register a floor device for a table and print its API key (shown this once, stored as a hash)."""

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError

from pit.accounts.services import device_create
from pit.core.arguments import PitCommand, text
from pit.tables.models import Table


class Command(PitCommand):
    help = "Create a floor device for a table and print its API key (Authorization: Api-Key <key>)."

    def add_arguments(self, parser):
        parser.add_argument("--table", type=text, required=True, help="Table code, e.g. BB1.")
        parser.add_argument(
            "--name", type=text, required=True, help="Device name, unique at the table, e.g. 'shoe reader'."
        )

    def handle(self, *args, table: str, name: str, **options):
        try:
            table_obj = Table.objects.get(code=table)
        except Table.DoesNotExist:
            raise CommandError(f"There is no table {table!r}.") from None
        try:
            device, key = device_create(table=table_obj, name=name)
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
        self.stderr.write(
            f"Device {device.name!r} for table {table_obj.code} (id {device.pk}). "
            "The key is shown this once; send it as 'Authorization: Api-Key <key>':"
        )
        self.stdout.write(key)
