"""The project's translation catalogs compiled for the tests that read a page in Chinese: msgfmt
(gettext) writes each .mo beside its .po where it is missing or older, and Django reads them
afresh. CI compiles them too (manage.py compilemessages); this keeps a plain pytest run honest."""

import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.test.signals import setting_changed


def compile_catalogs() -> None:
    for locale_dir in settings.LOCALE_PATHS:
        for po in Path(locale_dir).glob("*/LC_MESSAGES/*.po"):
            mo = po.with_suffix(".mo")
            if not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime:
                subprocess.run(["msgfmt", "--check-format", "-o", str(mo), str(po)], check=True)
    # What Django does when LOCALE_PATHS changes: forget the catalogs it has read.
    setting_changed.send(sender=None, setting="LOCALE_PATHS", value=settings.LOCALE_PATHS, enter=False)


@pytest.fixture(scope="session")
def catalogs():
    compile_catalogs()
