"""Plain Django views shared by the whole site."""

from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from pit.core.health import system_health


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when every check of pit.core.health passes, 503 naming each that does not (`failing`)."""
    checks = system_health()
    failing = [check.name for check in checks if not check.ok]
    body = {
        "status": "unavailable" if failing else "ok",
        "failing": failing,
        "checks": {check.name: {"ok": check.ok, "detail": check.detail, **check.figures} for check in checks},
    }
    return JsonResponse(body, status=503 if failing else 200)
