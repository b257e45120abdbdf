"""What other apps show on a patron's page and a session's page: the ratings app registers its
figures here (today's and lifetime figures, a session's rating), so players knows nothing of them.

A panel is a title and a function (request, row) -> HTML (a SafeString); it is shown in the order
registered, to whoever may open the page, after the page's own sections."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest


@dataclass(frozen=True)
class Panel:
    key: str
    title: str
    render: Callable[[HttpRequest, Any], str]


PATRON_PANELS: dict[str, Panel] = {}
SESSION_PANELS: dict[str, Panel] = {}


def patron_panel_register(key: str, title: str, render: Callable[[HttpRequest, Any], str]) -> Panel:
    """A section of the patron's page (render(request, patron))."""
    PATRON_PANELS[key] = Panel(key, title, render)
    return PATRON_PANELS[key]


def session_panel_register(key: str, title: str, render: Callable[[HttpRequest, Any], str]) -> Panel:
    """A section of a seat session's page (render(request, session))."""
    SESSION_PANELS[key] = Panel(key, title, render)
    return SESSION_PANELS[key]


def panels_rendered(panels: dict[str, Panel], request: HttpRequest, row) -> list[dict[str, str]]:
    return [{"key": panel.key, "title": panel.title, "html": panel.render(request, row)} for panel in panels.values()]
