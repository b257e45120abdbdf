"""URLs of pit.api."""
app_name = "api"

urlpatterns: list = []
