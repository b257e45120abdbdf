"""The dashboard in the reader's language: its page through the templates' translations, its
JavaScript's words through Django's JavaScript catalog (gettext, ngettext, interpolate), each of
them translated in both Chinese catalogs; no word of the script is written to the page bare."""

import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.urls import reverse
from django.utils import translation

from tests.catalogs import catalogs  # noqa: F401 - the fixture

SCRIPT = Path(settings.BASE_DIR) / "static" / "dashboard" / "dashboard.js"
# A string literal of the script: "..." (the script writes no '...' strings).
LITERAL = r'"((?:[^"\\]|\\.)*)"'
# Where the script puts words on the page: a node's text or title, an SVG's text or label.
SHOWN = re.compile(r'(?:\btext:|\btitle:|"aria-label":|createTextNode\(|svg\("text", \{[^}]*\},)\s*' + LITERAL)
# Marks and separators that are not words: " · ", "—", "%", "!".
NOT_WORDS = re.compile(r"^[\s\W\d]*$")


def _calls(script: str) -> list[str]:
    """The msgids of the script: the literal first argument of gettext(...) and ngettext(...) (a
    plural's catalog entry is keyed by its singular)."""
    msgids = re.findall(r"\bgettext\(" + LITERAL, script)
    return [json.loads(f'"{text}"') for text in msgids]


def _catalog(client, language: str) -> dict:
    with translation.override(language):
        response = client.get(reverse("dashboard:jsi18n"), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    text = response.content.decode()
    return json.loads(
        text[
            text.index("const newcatalog = ") + len("const newcatalog = ") : text.index(
                ";\n", text.index("const newcatalog")
            )
        ]
    )


def test_no_word_of_the_script_reaches_the_page_without_gettext():
    script = SCRIPT.read_text(encoding="utf-8")
    bare = [text for text in SHOWN.findall(script) if not NOT_WORDS.match(json.loads(f'"{text}"'))]
    assert not bare, f"words shown without gettext: {bare}"
    assert len(_calls(script)) >= 35


@pytest.mark.parametrize("language", ["zh-hant", "zh-hans"])
def test_every_word_of_the_script_is_translated_in_the_javascript_catalog(client, db, catalogs, language):  # noqa: F811
    catalog = _catalog(client, language)
    script = SCRIPT.read_text(encoding="utf-8")
    for msgid in _calls(script):
        assert msgid in catalog, (language, msgid)
        words = catalog[msgid]
        words = words[0] if isinstance(words, list) else words
        assert words and words != msgid, (language, msgid)
        assert sorted(re.findall(r"%\(\w+\)s", msgid)) == sorted(re.findall(r"%\(\w+\)s", words)), msgid
    assert catalog["Big eye boy"] == "大眼仔" and catalog["Cockroach pig"] == "曱甴路"
    assert catalog["Banker"] == ("莊家" if language == "zh-hant" else "庄家")
    assert catalog["Banker %(count)s"] == ("莊 %(count)s" if language == "zh-hant" else "庄 %(count)s")


def test_the_page_loads_the_catalog_before_the_script_and_reads_in_chinese(client, db, catalogs):  # noqa: F811
    user = get_user_model().objects.create_user(username="boss", password="pw-for-tests-1", is_staff=True)
    user.groups.add(Group.objects.get(name="pit boss"))
    client.force_login(user)
    with translation.override("zh-hant"):
        page = client.get(reverse("dashboard:index"), HTTP_ACCEPT_LANGUAGE="zh-hant").content.decode()
    assert page.index(reverse("dashboard:jsi18n")) < page.index("dashboard/dashboard.js")
    for words in ("場面", "本班備註", "為下一班寫備註", "各賭枱本遊戲日的贏率（累計）", "有新警報時發出聲響"):
        assert words in page
    for english in ("The floor", "Shift notes", "Write a note for the next shift", "sound on a new alarm"):
        assert english not in page
