"""Plain Django views shared by the whole site."""

from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from pit.core.health import system_health


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database and the broker answer, 503 naming what failed."""
    checks = system_health()
    healthy = all(check.ok for check in checks)
    body = {
        "status": "ok" if healthy else "unavailable",
        "checks": {check.name: {"ok": check.ok, "detail": check.detail} for check in checks},
    }
    return JsonResponse(body, status=200 if healthy else 503)
