"""Sign a report export (the commission report's JSON or XLSX carries the day's chain heads)."""

from django.core.management.base import CommandError
from django.utils.translation import gettext

from pit.core.arguments import PitCommand, file_path
from pit.records.anchors import AnchorError, anchors_read, export_sign


class Command(PitCommand):
    help = (
        "Write FILE.sig beside a commission report export (JSON or XLSX): HMAC-SHA256 of the file with "
        "PIT_RECORDS_SIGNING_KEY. `verify_records --against FILE` checks it and refuses the file if either "
        "changed. Refuses a file that carries no record heads, and a signature that exists already."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", type=file_path, metavar="FILE")

    def handle(self, *args, files, **options):
        for path in files:
            try:
                anchors = anchors_read(path, unsigned=True)
                signature = export_sign(path)
            except AnchorError as exc:
                raise CommandError(gettext("{path} not signed: {exc}").format(path=path, exc=exc)) from None
            except OSError as exc:
                raise CommandError(
                    gettext("{path} not signed: {exc_strerror}").format(path=path, exc_strerror=exc.strerror)
                ) from None
            self.stdout.write(
                gettext("{signature}: signs {count} shoe heads").format(signature=signature, count=len(anchors))
            )
