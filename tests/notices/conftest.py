"""The notices tests use the table accounting tests' small pit."""

from tests.accounting.conftest import pit  # noqa: F401 - the fixture
