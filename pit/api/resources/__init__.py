"""The API's resources, one module each: its views, its input and output serializers, and the
functions that build its answers (docs/design/api.md)."""
