"""The API (pit.api, under /api/v1/): Django REST framework and its OpenAPI schema (drf-spectacular)."""

from pit.settings.components.pit import PIT_API_MAX_BODY_BYTES

REST_FRAMEWORK = {
    # Floor devices: "Authorization: Api-Key <key>"; staff: "Authorization: Token <token>" or the
    # admin session. The first class answers 401s with its WWW-Authenticate challenge.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "pit.api.authentication.DeviceKeyAuthentication",
        "pit.api.authentication.StaffTokenAuthentication",
        "pit.api.authentication.StaffSessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["pit.api.permissions.PitAccess"],
    "DEFAULT_PARSER_CLASSES": ["pit.api.parsers.PitJSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "pit.api.pagination.PitPagination",
    "DEFAULT_SCHEMA_CLASS": "pit.api.schema.PitAutoSchema",
    "EXCEPTION_HANDLER": "pit.api.errors.exception_handler",
    "COERCE_DECIMAL_TO_STRING": True,
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "pit API",
    "VERSION": "1.0.0",
    "DESCRIPTION": "See pit/api/docs.py (API_DESCRIPTION).",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI served from our own static files: pit runs on networks with no way out.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "WinnerEnum": ["player", "banker", "tie"],
        # A violation's status, in violations and in alarms alike.
        "ViolationStatusEnum": ["open", "acknowledged", "resolved", "dismissed"],
        "ErrorCodeEnum": "pit.api.errors.ERROR_CODES",
        "PaytableFactEnum": "pit.api.serializers.FACT_CHOICES",
        "RoundingModeEnum": "pit.api.serializers.ROUNDING_MODES",
        "CashKindEnum": "pit.cash.models.CashKind",
    },
    # A field that may be null is a nullable enum, not a oneOf with a separate NullEnum.
    "ENUM_ADD_EXPLICIT_BLANK_NULL_CHOICE": False,
    # Descriptions are written for integrators (summary=, description=, help_text=); class docstrings
    # are for developers and stay out of the schema.
    "DISABLE_DOCSTRING_DESCRIPTIONS": True,
    "PREPROCESSING_HOOKS": [],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "pit.api.schema.postprocess_description",
    ],
}
# Django refuses a request body larger than this before the API parses it (a 413 naming the limit).
DATA_UPLOAD_MAX_MEMORY_SIZE = PIT_API_MAX_BODY_BYTES
