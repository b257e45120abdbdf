"""Browser tests: headless Debian Chromium driven by Playwright (sync API) against pytest-django's
live server. Reusable fixtures: `browser_page` (a fresh page), `admin_login` (log a user in).

Chromium is the system's /usr/bin/chromium (never `playwright install`). Without it the tests are
skipped with the reason, except when CI is set: then a missing browser is a failure, so a browser
test can never pass as green by not running.
"""

import os
from pathlib import Path

import pytest
from django.core.servers.basehttp import WSGIServer
from django.db import connections
from django.test.testcases import LiveServerThread, QuietWSGIRequestHandler

CHROMIUM = Path(os.environ.get("PIT_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
INSTALL_HINT = "install it with `apt-get install -y chromium chromium-driver`"


class _OneRequestAtATime(WSGIServer):
    """The live server on the embedded default: every request in the server's own thread, one after
    the other. An in-memory SQLite database has one connection, shared by the test and every thread
    of the server; two requests at once on it (a page and the dashboard's refresh) can wait on each
    other for ever. Django's non-threaded server answers with `Connection: close`, which browsers
    follow. On PostgreSQL every thread has its own connection and the threaded server stays."""


_threaded_server = LiveServerThread._create_server  # noqa: SLF001 (the one seam Django offers)


def _create_server(self, connections_override=None):
    if connections_override:  # the shared connection of an in-memory SQLite database
        return _OneRequestAtATime((self.host, self.port), QuietWSGIRequestHandler, allow_reuse_address=False)
    return _threaded_server(self, connections_override=connections_override)


LiveServerThread._create_server = _create_server  # noqa: SLF001 (pytest-django's live_server makes this thread)


def _unavailable(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"browser test cannot run in CI: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture
def browser_page(live_server, monkeypatch):
    """A Playwright page in a fresh headless Chromium; `page.base_url` is the live server's URL.

    Playwright's sync API runs an event loop in this thread, and Django refuses ORM calls while
    one runs; the test's own ORM calls are synchronous and safe, so the check is lifted here only.
    """
    if not CHROMIUM.exists() or not os.access(CHROMIUM, os.X_OK):
        _unavailable(f"no Chromium at {CHROMIUM}: {INSTALL_HINT}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("Playwright for Python is not installed (pip install -e '.[dev]')")
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        context = browser.new_context(base_url=live_server.url, viewport={"width": 1400, "height": 900})
        context.set_default_timeout(15_000)
        page = context.new_page()
        try:
            yield page
        finally:
            context.close()
            browser.close()
            # ORM calls made while Playwright's loop ran may hold a connection of their own
            # (Django keeps connections per context): close it, or the test database cannot be dropped.
            connections.close_all()


@pytest.fixture
def admin_login():
    """`admin_login(page, username, password)`: sign in through the admin's login form."""

    def login(page, username: str, password: str):
        page.goto("/admin/login/?next=/admin/")
        page.fill("#id_username", username)
        page.fill("#id_password", password)
        page.click("input[type=submit]")
        page.wait_for_url("**/admin/")

    return login
