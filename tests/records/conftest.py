"""The played shoe of tests/records/test_chain.py, for the other tests of the records too."""

from tests.records.test_chain import played_shoe  # noqa: F401 - a fixture
