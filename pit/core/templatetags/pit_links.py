"""`{% pit_links as links %}`: the pit's pages this user may open (pit.core.admin_site.PAGE_LINKS)."""

from typing import Any

from django import template

from pit.core.admin_site import page_links

register = template.Library()


@register.simple_tag(takes_context=True)
def pit_links(context: template.Context) -> list[dict[str, Any]]:  # labels may be lazy translations
    request = context.get("request")
    return page_links(request) if request is not None else []
