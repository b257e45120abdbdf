"""The replica router's decisions (a real streaming replica is in test_replica.py, on PostgreSQL)."""

from pit.core import replica
from pit.core.replica import REPLICA, ReplicaRouter, read_from_replica, replica_reads
from pit.shoes.models import Coup


def test_only_reads_inside_replica_reads_go_to_a_configured_replica(monkeypatch):
    router = ReplicaRouter()
    with replica_reads():
        assert router.db_for_read(Coup) is None  # no DATABASE_REPLICA_URL: the primary
    monkeypatch.setattr(replica, "replica_configured", lambda: True)

    assert router.db_for_read(Coup) is None
    with replica_reads():
        assert router.db_for_read(Coup) == REPLICA
        assert router.db_for_write(Coup) == "default"
    assert router.db_for_read(Coup) is None
    assert router.allow_migrate(REPLICA, "shoes") is False
    assert router.allow_migrate("default", "shoes") is True


def test_between_the_rows_of_a_report_reads_go_back_to_the_primary(monkeypatch):
    """An export updates its progress between rows: that bookkeeping must see the primary."""
    monkeypatch.setattr(replica, "replica_configured", lambda: True)
    router = ReplicaRouter()

    def rows():
        for number in (1, 2):
            yield number, router.db_for_read(Coup)

    inside, between = [], []
    for _, database in read_from_replica(rows()):
        inside.append(database)
        between.append(router.db_for_read(Coup))

    assert inside == [REPLICA, REPLICA]
    assert between == [None, None]
