"""URLs of pit.reports."""
app_name = "reports"

urlpatterns: list = []
