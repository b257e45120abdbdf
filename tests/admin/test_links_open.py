"""Only what a role may open: every link on every page a role reaches from the start page opens
(200), for every role of pit.accounts.roles. The links are found on the pages, not listed here."""

import re
from collections import deque
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import pytest
from django.urls import reverse

from pit.accounts.roles import ROLES
from pit.core.admin_site import PAGE_LINKS
from tests.admin.conftest import PASSWORD, build_more, make_user

# Links that are not pages to open with a GET: signing out (a POST form in Django 5), the site's
# root (a redirect to the start page), the documentation of the API (served from the API).
NOT_PAGES = ("/admin/logout/", "/api/")
PAGES_PER_ROLE = 160


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        href = dict(attrs).get("href")
        if tag == "a" and href and not href.startswith(("#", "javascript:", "mailto:")):
            self.links.append(href)


def links_on(page_url: str, html: str) -> list[str]:
    parser = _Links()
    parser.feed(html)
    return [urljoin(page_url, href) for href in parser.links]


def _shape(url: str) -> tuple[str, tuple[str, ...]]:
    """A page's kind: its path with numbers as N and the names of its query's parameters (one
    visit per kind: a list filtered by another value of the same filter is the same page)."""
    parts = urlsplit(url)
    names = tuple(sorted({pair.split("=")[0] for pair in parts.query.split("&") if pair}))
    return re.sub(r"/\d+/", "/N/", parts.path), names


def crawl(client) -> dict[str, tuple[int, str]]:
    """Every link reached from the start page, breadth first, one per kind: url -> (status, found on)."""
    start = reverse("admin:index")
    seen = {_shape(start)}
    queue = deque([(start, "")])
    opened: dict[str, tuple[int, str]] = {}
    while queue and len(opened) < PAGES_PER_ROLE:
        url, found_on = queue.popleft()
        response = client.get(url, follow=True)
        opened[url] = (response.status_code, found_on)
        if response.status_code != 200 or "text/html" not in response.get("Content-Type", ""):
            continue
        for link in links_on(url, response.content.decode()):
            parts = urlsplit(link)
            if parts.netloc not in ("", "testserver") or not parts.path.startswith("/admin/"):
                continue
            if parts.path.startswith(NOT_PAGES):
                continue
            path = parts.path + (f"?{parts.query}" if parts.query else "")
            if _shape(path) not in seen:
                seen.add(_shape(path))
                queue.append((path, url))
    return opened


@pytest.mark.parametrize("role", sorted(ROLES))
def test_every_link_a_role_sees_opens(role, pit, client, django_capture_on_commit_callbacks):
    build_more(django_capture_on_commit_callbacks)
    user = make_user(role)
    client.login(username=user.username, password=PASSWORD)
    opened = crawl(client)
    refused = {url: found_on for url, (status, found_on) in opened.items() if status != 200}
    assert refused == {}
    assert len(opened) > 1 or not user.get_all_permissions()


@pytest.mark.parametrize("role", sorted(ROLES))
def test_the_header_shows_exactly_the_pages_the_role_may_open(role, pit, client):
    """Each registered page, linked or not, is requested: it opens exactly when the header links it."""
    user = make_user(role)
    client.login(username=user.username, password=PASSWORD)
    header = client.get(reverse("admin:index")).content.decode()
    for link in PAGE_LINKS.values():
        linked = f'data-link="{link.key}"' in header
        status = client.get(link.url()).status_code
        assert (link.key, linked, status) == (link.key, linked, 200 if linked else 403)


def test_a_refused_page_is_styled_and_says_what_the_role_may_open(pit, client):
    user = make_user("cage")
    client.login(username=user.username, password=PASSWORD)
    response = client.get(reverse("dashboard:index"))
    page = response.content.decode()
    assert response.status_code == 403
    assert "This page is not yours to open" in page
    assert "pit/admin.css" in page
    assert 'href="/admin/tables/table/"' in page
    assert "/admin/pit/dashboard/" not in page.split("What you may open")[1]
