"""Work fanned out over forked processes (`pit.core.processes.run_forked`): every item's result in
item order, each child's final state, a child's failure or death raised in the parent once every
child has ended, and no database connection shared with a child."""

import os
import signal
import time

import pytest
from django.db import connection

from pit.core.processes import ChildProcessFailed, run_forked


def no_child_left():
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def test_every_item_is_worked_once_and_the_results_come_in_item_order():
    items = list(range(23))
    done = []

    forked = run_forked(items, lambda item: (item * item, os.getpid()), processes=3, done=done.append)

    assert [square for square, _ in forked.results] == [item * item for item in items]
    assert sorted(done) == sorted(forked.results)
    assert len({pid for _, pid in forked.results} - {os.getpid()}) <= 2
    no_child_left()


def test_each_child_hands_back_what_finish_returns_and_the_parent_runs_first_before_its_share():
    parent = os.getpid()
    worked: list[int] = []
    ran_first = []

    def work(item):
        worked.append(item)  # a child's list is its own copy
        return item

    forked = run_forked(
        list(range(8)),
        work,
        processes=3,
        first=lambda: ran_first.append(os.getpid()),
        finish=lambda: (os.getpid(), sorted(worked)),
    )

    assert ran_first == [parent]
    assert len(forked.states) == 2
    assert all(pid != parent for pid, _ in forked.states)
    shares = [items for _, items in forked.states] + [sorted(worked)]
    assert sorted(item for share in shares for item in share) == list(range(8))
    assert forked.results == list(range(8))


def test_never_more_children_than_items():
    forked = run_forked([1], lambda item: os.getpid(), processes=4, finish=os.getpid)

    assert len(forked.states) <= 1
    assert forked.results in ([os.getpid()], forked.states)
    no_child_left()


def test_a_child_that_raises_is_raised_in_the_parent_with_its_traceback_once_every_child_ended():
    parent = os.getpid()

    def work(item):
        if os.getpid() != parent:
            raise ValueError(f"item {item} refused")
        return item

    with pytest.raises(ChildProcessFailed, match=r"(?s)a child process failed:.*ValueError: item \d+ refused"):
        run_forked(list(range(40)), work, processes=2, first=lambda: time.sleep(0.5))  # the child takes one
    no_child_left()


def test_a_child_that_is_killed_is_a_failure_in_the_parent():
    parent = os.getpid()

    def work(item):
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return item

    with pytest.raises(ChildProcessFailed, match="ended without an answer"):
        run_forked(list(range(40)), work, processes=2, first=lambda: time.sleep(0.5))  # the child takes one
    no_child_left()


def test_a_failure_in_the_parent_is_raised_after_the_children_ended():
    parent = os.getpid()

    def work(item):
        if os.getpid() == parent:
            raise KeyError(item)
        time.sleep(0.05)  # the parent takes an item too
        return item

    with pytest.raises(KeyError):
        run_forked(list(range(10)), work, processes=2)
    no_child_left()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_no_child_shares_the_parents_database_connection():
    def backend(item):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            return cursor.fetchone()[0]

    parent_backend = backend(None)

    forked = run_forked(list(range(6)), backend, processes=3, finish=lambda: backend(None))

    assert len(forked.states) == 2
    children = set(forked.states)
    assert len(children) == 2 and parent_backend not in children
    assert set(forked.results) <= children | {backend(None)}
