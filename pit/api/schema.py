"""The OpenAPI schema's conventions: the error envelope on every operation, the Idempotency-Key
header on every POST, the security schemes that can succeed on each operation, the response headers,
`additionalProperties: false` on request bodies (unknown fields are refused), and the API
description (pit/api/docs.py)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

from pit.api.docs import API_DESCRIPTION
from pit.api.errors import ERROR_CODES
from pit.api.examples import COMPONENT_EXAMPLES

_ERROR_DESCRIPTIONS = {
    "400": "Malformed request: `errors` names each field and its problem. Nothing was written.",
    "401": "No credentials, or an unknown or revoked key or token.",
    "403": "Authenticated, but not allowed: another table's data, or a permission the role lacks.",
    "404": "No such object.",
    "406": "Only application/json is answered.",
    "413": "The body is larger than the API takes (`PIT_API_MAX_BODY_BYTES`); the message names the limit.",
    "409": "Clashes with what is recorded (the open shoe, a coup number recorded with other values, a "
    "table with a shoe dealing), or an Idempotency-Key that could not be taken (retry after `Retry-After`).",
    "415": "The body must be JSON (Content-Type: application/json).",
    "422": "This Idempotency-Key was used before with a different request.",
    "429": "Too many failed authentications from this address or with this key prefix: wait the "
    "`Retry-After` seconds (the key is not checked meanwhile).",
}
_READ_ERRORS = ("400", "401", "403", "404", "406", "429")
_WRITE_ERRORS = ("400", "401", "403", "404", "406", "409", "413", "415", "422", "429")


class ErrorSerializer(serializers.Serializer):
    """The one error envelope of the API."""

    status = serializers.IntegerField(help_text="The HTTP status, repeated.")
    code = serializers.ChoiceField(choices=ERROR_CODES, help_text="What kind of error, for a program to act on.")
    message = serializers.CharField()
    # A field, not Serializer.errors: DRF's metaclass takes declared fields out of the class body.
    errors = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Field path (e.g. `wagers[2].amount`, `body`) -> problems; `{}` when no field is at fault.",
    )
    details = serializers.DictField(help_text="Ids a client can act on, e.g. `shoe_id` of the open shoe.")

    class Meta:
        ref_name = "Error"


class PitAutoSchema(AutoSchema):
    def get_override_parameters(self):
        parameters = list(super().get_override_parameters())
        if self.method == "POST":
            parameters.append(
                OpenApiParameter(
                    "Idempotency-Key",
                    {"type": "string", "minLength": 1, "maxLength": 255},
                    OpenApiParameter.HEADER,
                    required=False,
                    description="Makes a retry safe: the same key and body get the first answer again, "
                    "nothing written twice. 1 to 255 printable characters.",
                )
            )
        return parameters

    def get_auth(self):
        """Only the schemes that can succeed: the device key only where devices are let in."""
        auth = super().get_auth()
        if not getattr(self.view, "device_access", None):
            auth = [scheme for scheme in auth if DeviceKeyScheme.name not in scheme]
        return auth

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for code in _WRITE_ERRORS if self.method == "POST" else _READ_ERRORS:
            if code not in responses:
                response = self._get_response_for_code(ErrorSerializer, code, direction=direction)
                response["description"] = _ERROR_DESCRIPTIONS[code]
                responses[code] = response
        return responses


class DeviceKeyScheme(OpenApiAuthenticationExtension):
    target_class = "pit.api.authentication.DeviceKeyAuthentication"
    name = "DeviceApiKey"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "A floor device's key, sent with the prefix `Api-Key` and a space: "
            "`Authorization: Api-Key 3f9c...` (a generated client: the whole value, prefix included, as the "
            "API key). Printed once by `manage.py create_device_key`.",
        }


_REPLAYED = {
    "description": "`true` when this is the stored answer to an earlier request with the same "
    "Idempotency-Key (nothing was written again).",
    "schema": {"type": "string", "enum": ["true"]},
}
_RETRY_AFTER = {"description": "Seconds to wait before asking again.", "schema": {"type": "integer", "minimum": 0}}


def postprocess_description(result, generator, request, public):
    """What the views cannot say one by one: the description (SPECTACULAR_SETTINGS cannot import the
    API), unknown request fields refused, the response headers, and examples for every answer."""
    result["info"]["description"] = API_DESCRIPTION
    schemas = result.get("components", {}).get("schemas", {})
    for name, component in schemas.items():
        if name.endswith("Request") and component.get("type") == "object":
            component["additionalProperties"] = False
        if name in COMPONENT_EXAMPLES:
            component["example"] = COMPONENT_EXAMPLES[name]
    for operations in result.get("paths", {}).values():
        for method, operation in operations.items():
            for code, response in operation.get("responses", {}).items():
                headers = {}
                if method == "post" and code[0] in "234":  # a stored answer, errors included, is replayed
                    headers["Idempotent-Replayed"] = _REPLAYED
                if code in ("202", "429") or (method == "post" and code == "409"):
                    headers["Retry-After"] = _RETRY_AFTER
                if headers:
                    response.setdefault("headers", {}).update(headers)
    return result


class StaffSessionScheme(OpenApiAuthenticationExtension):
    target_class = "pit.api.authentication.StaffSessionAuthentication"
    name = "cookieAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "cookie", "name": "sessionid"}


class StaffTokenScheme(OpenApiAuthenticationExtension):
    target_class = "pit.api.authentication.StaffTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "A staff user's personal token: `Authorization: Token <token>` (printed once by "
            "`manage.py create_staff_token`; it expires after PIT_STAFF_TOKEN_DAYS at most).",
        }
