"""URLs of pit.api, under /api/v1/."""

from django.urls import include, path, re_path
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework.decorators import api_view, authentication_classes, permission_classes
from rest_framework.permissions import AllowAny

from pit.api.errors import error_response
from pit.api.resources import (
    accounting,
    alarms,
    cash,
    corrections,
    coups,
    dealers,
    ledger,
    paytables,
    players,
    progressives,
    ratings,
    reports,
    shoes,
    tables,
    violations,
)

app_name = "api"


@extend_schema(exclude=True)
@api_view(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])
@authentication_classes([])
@permission_classes([AllowAny])
def api_not_found(request, *args, **kwargs):
    """Any path under /api/v1/ that names no resource."""
    return error_response(
        404, "not_found", gettext("There is no API resource at {request_path}.").format(request_path=request.path)
    )


urlpatterns = [
    path("tables/", tables.TableListView.as_view(), name="table-list"),
    path("tables/<slug:code>/", tables.TableDetailView.as_view(), name="table-detail"),
    path("tables/<slug:code>/open/", tables.TableOpenView.as_view(), name="table-open"),
    path("tables/<slug:code>/close/", tables.TableCloseView.as_view(), name="table-close"),
    path("tables/<slug:code>/shoes/", shoes.ShoeStartView.as_view(), name="shoe-start"),
    path("shoes/<int:shoe_id>/", shoes.ShoeDetailView.as_view(), name="shoe-detail"),
    path("shoes/<int:shoe_id>/coups/", coups.ShoeCoupsView.as_view(), name="shoe-coups"),
    path("shoes/<int:shoe_id>/coups/batch/", coups.ShoeCoupsBatchView.as_view(), name="shoe-coups-batch"),
    path(
        "shoes/<int:shoe_id>/seats/<int:seat>/collect/",
        ledger.CommissionCollectView.as_view(),
        name="commission-collect",
    ),
    path("shoes/<int:shoe_id>/close/", shoes.ShoeCloseView.as_view(), name="shoe-close"),
    path("shoes/<int:shoe_id>/reconciliation/", ledger.ReconciliationView.as_view(), name="shoe-reconciliation"),
    path("coups/<int:coup_id>/", coups.CoupDetailView.as_view(), name="coup-detail"),
    path("coups/<int:coup_id>/corrections/", corrections.CoupCorrectionsView.as_view(), name="coup-corrections"),
    path("coups/<int:coup_id>/void/", corrections.CoupVoidView.as_view(), name="coup-void"),
    path(
        "shoes/<int:shoe_id>/reconciliation/supplements/",
        ledger.ReconciliationSupplementsView.as_view(),
        name="shoe-reconciliation-supplements",
    ),
    path("violations/", violations.ViolationListView.as_view(), name="violation-list"),
    path("alarms/", alarms.AlarmListView.as_view(), name="alarm-list"),
    path(
        "violations/<int:violation_id>/acknowledge/",
        violations.ViolationAcknowledgeView.as_view(),
        name="violation-acknowledge",
    ),
    path(
        "violations/<int:violation_id>/resolve/",
        violations.ViolationResolveView.as_view(),
        name="violation-resolve",
    ),
    path("violations/<int:violation_id>/fault/", dealers.ViolationFaultView.as_view(), name="violation-fault"),
    path("tables/<slug:code>/rotations/", dealers.TableRotationView.as_view(), name="table-rotations"),
    path("dealers/statistics/", dealers.DealerStatisticsView.as_view(), name="dealer-statistics"),
    path("tables/<slug:code>/seats/", players.SeatedView.as_view(), name="table-seats"),
    path("tables/<slug:code>/seats/sit/", players.SitView.as_view(), name="seat-sit"),
    path("tables/<slug:code>/seats/pause/", players.PauseView.as_view(), name="seat-pause"),
    path("tables/<slug:code>/seats/resume/", players.ResumeView.as_view(), name="seat-resume"),
    path("tables/<slug:code>/seats/stand/", players.StandView.as_view(), name="seat-stand"),
    path("tables/<slug:code>/seats/identify/", players.IdentifyView.as_view(), name="seat-identify"),
    path("tables/<slug:code>/seats/buy-ins/", players.BuyInView.as_view(), name="seat-buy-ins"),
    path("tables/<slug:code>/seats/walks/", players.WalkView.as_view(), name="seat-walks"),
    path("patrons/<str:card_number>/", players.PatronLookupView.as_view(), name="patron-detail"),
    path("patrons/<str:card_number>/sessions/", players.PatronSessionsView.as_view(), name="patron-sessions"),
    path("patrons/<str:card_number>/ratings/", ratings.PatronRatingsView.as_view(), name="patron-ratings"),
    path("patrons/<str:card_number>/comps/", ratings.PatronCompsView.as_view(), name="patron-comps"),
    path("paytables/", paytables.PaytableListView.as_view(), name="paytable-list"),
    path("paytables/<int:paytable_id>/odds/", paytables.PaytableOddsView.as_view(), name="paytable-odds"),
    path("accounting/", include((accounting.urlpatterns, "accounting"))),
    path("cash/transactions/", cash.CashTransactionView.as_view(), name="cash-transactions"),
    path("cash/days/<str:day>/", cash.CashDayView.as_view(), name="cash-day"),
    path("cash/rates/", cash.RateView.as_view(), name="cash-rates"),
    path("cash/findings/", cash.FindingListView.as_view(), name="cash-findings"),
    path("cash/findings/<int:finding_id>/review/", cash.FindingReviewView.as_view(), name="cash-finding-review"),
    path("progressives/", include((progressives.urlpatterns, "progressives"))),
    # The schema and its docs are public: they describe the API, they hold no data.
    path(
        "schema/",
        SpectacularAPIView.as_view(permission_classes=[AllowAny], authentication_classes=[]),
        name="schema",
    ),
    path(
        "docs/",
        SpectacularSwaggerView.as_view(url_name="api:schema", permission_classes=[AllowAny], authentication_classes=[]),
        name="docs",
    ),
    path(
        "redoc/",
        SpectacularRedocView.as_view(url_name="api:schema", permission_classes=[AllowAny], authentication_classes=[]),
        name="redoc",
    ),
    path("reports/", include((reports.urlpatterns, "reports"))),
    # Anything else under /api/v1/ (e.g. /shoes/abc/) is a 404 in the API's envelope, not an HTML page.
    re_path(r"^[\s\S]*$", api_not_found, name="not-found"),
]
