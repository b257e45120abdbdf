"""A staff user's own language: chosen in the admin's header, kept on the user, applied at every
later login whatever the browser asks for; the API left to the client's Accept-Language."""

import pytest
from django.urls import reverse

from pit.accounts.language import SESSION_KEY, language_prefer, language_preferred
from pit.accounts.models import LanguagePreference
from tests.admin.conftest import PASSWORD, make_user

pytestmark = pytest.mark.django_db


def test_the_header_offers_every_language_and_the_choice_is_kept(client, role_groups):
    user = make_user("pit boss", "boss")
    client.login(username=user.username, password=PASSWORD)
    page = client.get(reverse("admin:index")).content.decode()
    assert 'action="/admin/pit/language/"' in page
    for code, name in (("en-us", "English"), ("zh-hant", "繁體中文"), ("zh-hans", "简体中文")):
        assert f'value="{code}"' in page and name in page

    response = client.post(reverse("language-set"), {"language": "zh-hant", "next": "/admin/tables/table/"})
    assert response.status_code == 302 and response["Location"] == "/admin/tables/table/"
    assert LanguagePreference.objects.get(user=user).language == "zh-hant"
    assert client.session[SESSION_KEY] == "zh-hant"
    page = client.get(reverse("admin:index"))
    assert page["Content-Language"] == "zh-hant"
    assert "賭場後台" in page.content.decode()


def test_the_preference_wins_over_the_browser_at_the_next_login(client, role_groups):
    user = make_user("accountant", "counter")
    language_prefer(user=user, language="zh-hans")
    client.login(username=user.username, password=PASSWORD)
    page = client.get(reverse("admin:index"), HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9")
    assert page["Content-Language"] == "zh-hans"
    assert "赌场后台" in page.content.decode()


def test_without_a_preference_the_browser_decides(client, role_groups):
    user = make_user("pit boss", "boss")
    client.login(username=user.username, password=PASSWORD)
    assert language_preferred(user) == ""
    assert client.get(reverse("admin:index"), HTTP_ACCEPT_LANGUAGE="zh-TW")["Content-Language"] == "zh-hant"
    assert client.get(reverse("admin:index"), HTTP_ACCEPT_LANGUAGE="en")["Content-Language"] == "en-us"


def test_an_unknown_language_or_a_foreign_next_changes_nothing(client, role_groups):
    user = make_user("pit boss", "boss")
    client.login(username=user.username, password=PASSWORD)
    response = client.post(reverse("language-set"), {"language": "xx", "next": "https://elsewhere.example/"})
    assert response.status_code == 302 and response["Location"] == "/admin/"
    assert not LanguagePreference.objects.exists()
    assert client.get(reverse("language-set")).status_code == 405
    with pytest.raises(ValueError):
        language_prefer(user=user, language="fr")


def test_the_login_page_offers_the_languages_to_a_visitor(client):
    page = client.get(reverse("admin:login"), HTTP_ACCEPT_LANGUAGE="zh-hant")
    assert page["Content-Language"] == "zh-hant"
    html = page.content.decode()
    assert 'name="language"' in html and "登入" in html
    response = client.post(reverse("language-set"), {"language": "zh-hans", "next": "/admin/login/"})
    assert response.cookies["django_language"].value == "zh-hans"
    assert not LanguagePreference.objects.exists()
