"""URLs of pit.dashboard."""
app_name = "dashboard"

urlpatterns: list = []
