"""Register a floor device for a table and print its API key (shown this once, stored as a hash)."""

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.utils.translation import gettext

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
            raise CommandError(gettext("There is no table {table!r}.").format(table=table)) from None
        try:
            device, key = device_create(table=table_obj, name=name)
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
        self.stderr.write(
            gettext(
                "Device {device_name!r} for table {table_obj_code} (id {device_pk}). "
                "The key is shown this once; send it as 'Authorization: Api-Key <key>':"
            ).format(device_name=device.name, table_obj_code=table_obj.code, device_pk=device.pk)
        )
        self.stdout.write(key)
