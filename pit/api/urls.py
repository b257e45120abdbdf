"""URLs of pit.api, under /api/v1/."""

from importlib.util import find_spec

from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework.permissions import AllowAny

from pit.api import accounting, alarms, corrections, dealers, views

app_name = "api"

urlpatterns = [
    path("tables/", views.TableListView.as_view(), name="table-list"),
    path("tables/<slug:code>/", views.TableDetailView.as_view(), name="table-detail"),
    path("tables/<slug:code>/open/", views.TableOpenView.as_view(), name="table-open"),
    path("tables/<slug:code>/close/", views.TableCloseView.as_view(), name="table-close"),
    path("tables/<slug:code>/shoes/", views.ShoeStartView.as_view(), name="shoe-start"),
    path("shoes/<int:shoe_id>/", views.ShoeDetailView.as_view(), name="shoe-detail"),
    path("shoes/<int:shoe_id>/coups/", views.ShoeCoupsView.as_view(), name="shoe-coups"),
    path("shoes/<int:shoe_id>/coups/batch/", views.ShoeCoupsBatchView.as_view(), name="shoe-coups-batch"),
    path(
        "shoes/<int:shoe_id>/seats/<int:seat>/collect/",
        views.CommissionCollectView.as_view(),
        name="commission-collect",
    ),
    path("shoes/<int:shoe_id>/close/", views.ShoeCloseView.as_view(), name="shoe-close"),
    path("shoes/<int:shoe_id>/reconciliation/", views.ReconciliationView.as_view(), name="shoe-reconciliation"),
    path("coups/<int:coup_id>/", views.CoupDetailView.as_view(), name="coup-detail"),
    path("coups/<int:coup_id>/corrections/", corrections.CoupCorrectionsView.as_view(), name="coup-corrections"),
    path("coups/<int:coup_id>/void/", corrections.CoupVoidView.as_view(), name="coup-void"),
    path(
        "shoes/<int:shoe_id>/reconciliation/supplements/",
        corrections.ReconciliationSupplementsView.as_view(),
        name="shoe-reconciliation-supplements",
    ),
    path("violations/", views.ViolationListView.as_view(), name="violation-list"),
    path("alarms/", alarms.AlarmListView.as_view(), name="alarm-list"),
    path(
        "violations/<int:violation_id>/acknowledge/",
        views.ViolationAcknowledgeView.as_view(),
        name="violation-acknowledge",
    ),
    path(
        "violations/<int:violation_id>/resolve/",
        views.ViolationResolveView.as_view(),
        name="violation-resolve",
    ),
    path("violations/<int:violation_id>/fault/", dealers.ViolationFaultView.as_view(), name="violation-fault"),
    path("tables/<slug:code>/rotations/", dealers.TableRotationView.as_view(), name="table-rotations"),
    path("dealers/statistics/", dealers.DealerStatisticsView.as_view(), name="dealer-statistics"),
    path("paytables/", views.PaytableListView.as_view(), name="paytable-list"),
    path("paytables/<int:paytable_id>/odds/", views.PaytableOddsView.as_view(), name="paytable-odds"),
    path("accounting/", include((accounting.urlpatterns, "accounting"))),
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
]

# The reports API (pit/api/report_views.py, report_urls.py) is added by the reports work; until
# its module exists the rest of the API works without it.
if find_spec("pit.api.report_urls") is not None:
    urlpatterns.append(path("reports/", include("pit.api.report_urls")))

# Anything else under /api/v1/ (e.g. /shoes/abc/) is a 404 in the API's envelope, not an HTML page.
urlpatterns.append(re_path(r"^[\s\S]*$", views.api_not_found, name="not-found"))
