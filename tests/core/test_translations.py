"""Every string shown to people is marked for translation and translated in every catalog.

1. Marked: a scan of pit's Python (the arguments and attributes people read: verbose names, help
   texts, labels, choices, admin descriptions and messages, exceptions shown on pages, in the API
   and on terminals, management command output), of the templates (text and attributes outside
   {% translate %} / {% blocktranslate %}) and of static JavaScript (text outside gettext()).
   A string makemessages cannot see is a string no catalog holds: this is what finds it.
2. Translated: what `makemessages` extracts from a copy of the sources, in both catalogs
   (locale/zh_Hant, locale/zh_Hans; django and djangojs), translated, not fuzzy; each catalog
   passes `msgfmt --check`.

Each area (an app of pit, a folder of templates, of static) is its own case, so a failure names
whose strings are missing. Fix a finding by marking the string (docs/operations/languages.md), or,
for a string that is not for people, by adding it to EXEMPT with the reason.
"""

import shutil
import time
from functools import cache

import pytest

from tests.core import translations_scan as scan

pytestmark = pytest.mark.skipif(not shutil.which("msgfmt"), reason="gettext is not installed (apt-get install gettext)")

# (path, text) -> why it is not for people or not to be translated. Keep it short.
EXEMPT: dict[tuple[str, str], str] = {}


def _py_area(path) -> str:
    """An app of pit, or "top" for pit's own modules (urls.py, celery.py ...)."""
    parts = path.relative_to(scan.ROOT / "pit").parts
    return parts[0] if len(parts) > 1 else "top"


PY_AREAS = sorted({_py_area(p) for p in scan.python_files()})
TEMPLATE_AREAS = sorted(
    {
        p.relative_to(scan.ROOT).parts[1] if len(p.relative_to(scan.ROOT).parts) > 2 else p.name
        for p in scan.template_files()
    }
)
JS_AREAS = sorted({p.relative_to(scan.ROOT / "static").parts[0] for p in scan.javascript_files()})


def _report(findings) -> str:
    kept = [f for f in findings if (f.path, f.text) not in EXEMPT]
    return "\n".join(str(f) for f in kept)


@pytest.mark.parametrize("area", PY_AREAS)
def test_python_strings_for_people_are_marked(area):
    findings = scan.unmarked_python(p for p in scan.python_files() if _py_area(p) == area)
    report = _report(findings)
    assert not report, f"strings for people not marked for translation in pit/{area}:\n{report}"


@pytest.mark.parametrize("area", TEMPLATE_AREAS)
def test_template_text_is_marked(area):
    paths = [
        p
        for p in scan.template_files()
        if (p.relative_to(scan.ROOT).parts[1] if len(p.relative_to(scan.ROOT).parts) > 2 else p.name) == area
    ]
    report = _report(scan.unmarked_templates(paths))
    assert not report, f"template text not in {{% translate %}} in templates/{area}:\n{report}"


@pytest.mark.parametrize("area", JS_AREAS)
def test_javascript_text_is_marked(area):
    paths = [p for p in scan.javascript_files() if p.relative_to(scan.ROOT / "static").parts[0] == area]
    report = _report(scan.unmarked_scripts(paths))
    assert not report, f"JavaScript text not in gettext() in static/{area}:\n{report}"


@cache
def _extracted():
    return scan.extracted_messages()


def _area_of(occurrence: str) -> str:
    parts = occurrence.split("/")
    if parts[0] == "pit" and len(parts) > 2:
        return f"pit/{parts[1]}"
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


@pytest.mark.parametrize("domain", scan.DOMAINS)
@pytest.mark.parametrize("language", scan.CATALOG_LANGUAGES)
def test_catalog_compiles_and_holds_every_extracted_message(language, domain):
    path = scan.catalog_path(language, domain)
    if not _extracted()[domain] and not path.exists():
        return  # nothing of this domain to translate (makemessages writes no empty catalog)
    assert path.exists(), f"no catalog {path.relative_to(scan.ROOT)}: manage.py makemessages -l {language}"
    assert scan.msgfmt_check(path) == "", f"{path.relative_to(scan.ROOT)} does not compile"
    catalog = {e.key: e for e in scan.po_entries(path.read_text(encoding="utf-8")) if not e.obsolete}
    missing, untranslated, fuzzy = [], [], []
    for entry in _extracted()[domain]:
        held = catalog.get(entry.key)
        label = f"{entry.msgid!r}" + (f" (context {entry.context!r})" if entry.context else "")
        if held is None:
            missing.append(label)
        elif held.fuzzy:
            fuzzy.append(label)
        elif not held.translated:
            untranslated.append(label)
    problems = [
        f"{len(missing)} not in the catalog (run makemessages): {missing[:40]}" if missing else "",
        f"{len(untranslated)} untranslated: {untranslated[:40]}" if untranslated else "",
        f"{len(fuzzy)} fuzzy (check the translation, remove the flag): {fuzzy[:40]}" if fuzzy else "",
    ]
    report = "\n".join(p for p in problems if p)
    assert not report, f"{path.relative_to(scan.ROOT)}:\n{report}"


def test_the_scan_is_fast():
    """The scans run on every test run: all of them in well under the suite's patience."""
    started = time.monotonic()
    scan.unmarked_python(scan.python_files())
    scan.unmarked_templates(scan.template_files())
    scan.unmarked_scripts(scan.javascript_files())
    assert time.monotonic() - started < 10


# ------------------------------------------------------------------- labels Django would derive
# What no scan of the source can see: a model, field or form field given no label gets one Django
# derives from its name, in English in every language. So every model of pit, every field of it
# and every field of pit's forms carries a lazy label, found by walking what is registered.


def _pit_models():
    from django.apps import apps

    return [model for model in apps.get_models() if model.__module__.startswith("pit.")]


def _lazy(text) -> bool:
    from django.utils.functional import Promise

    return isinstance(text, Promise)


def test_every_model_and_field_of_pit_has_a_lazy_label():
    unlabelled = []
    for model in _pit_models():
        meta = model._meta
        for what, text in (("verbose_name", meta.verbose_name), ("verbose_name_plural", meta.verbose_name_plural)):
            if not _lazy(text):
                unlabelled.append(f"{meta.label}.Meta.{what} = {text!r}")
        for field in meta.get_fields():
            if (field.auto_created and not field.concrete) or (field.auto_created and field.primary_key):
                continue  # reverse relations; the implicit id (ID, an acronym in every language)
            if not _lazy(field.verbose_name):
                unlabelled.append(f"{meta.label}.{field.name}: verbose_name={field.verbose_name!r}")
    assert unlabelled == []


def _pit_form_classes():
    import importlib
    import pkgutil

    from django import forms

    import pit

    for module in pkgutil.walk_packages(pit.__path__, "pit."):
        if ".migrations" not in module.name and not module.name.startswith(("pit.settings", "pit.wsgi", "pit.asgi")):
            importlib.import_module(module.name)

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    return sorted(
        {cls for cls in subclasses(forms.BaseForm) if cls.__module__.startswith("pit.")}, key=lambda c: c.__qualname__
    )


def test_every_field_of_pit_forms_has_a_lazy_label():
    from django.contrib.auth.forms import AuthenticationForm

    unlabelled = []
    for form in _pit_form_classes():
        for name, field in form.base_fields.items():
            if field.widget.is_hidden or (issubclass(form, AuthenticationForm) and name == "username"):
                continue  # AuthenticationForm labels its username from the user model when made
            if not _lazy(field.label):
                unlabelled.append(f"{form.__module__}.{form.__qualname__}.{name}: label={field.label!r}")
    assert unlabelled == []


def test_every_bet_of_the_engine_has_a_name_for_people():
    from django.utils import translation

    from pit import game
    from pit.core.bet_names import BET_NAMES

    assert set(BET_NAMES) == set(game.BET_TYPES)
    with translation.override(None):
        assert {code: str(name) for code, name in BET_NAMES.items()} == dict(game.BET_TYPES)
