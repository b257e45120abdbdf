"""Fixtures the tests of the records share with others: the played shoe of test_chain.py, and the
runtime role of a deployment (tests/archive/test_partitions.py)."""

from tests.archive.test_partitions import runtime_role  # noqa: F401 - a fixture
from tests.records.test_chain import played_shoe  # noqa: F401 - a fixture
