"""Child processes: work fanned out over forked processes (`run_forked`: this process and
`processes - 1` children, each with its own database connection, take items one at a time from a
shared counter; the children's results and failures come back through a pipe each), and children
kept running (`Supervised`: runpit's workers and beat, restarted when they die)."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import subprocess
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from django.db import connections

Item = TypeVar("Item")
Result = TypeVar("Result")

# A child's answer through its pipe: ("done", its (index, result) pairs, what `finish` returned) or
# ("failed", the traceback's text, None).
Answer = tuple[str, Any, Any]


class ChildProcessFailed(RuntimeError):
    """A child raised (the message carries its traceback) or ended without answering (killed)."""


@dataclass
class Forked(Generic[Result]):
    """What a fan-out gave: every item's result, in item order, and each child's `finish()`, in child order."""

    results: list[Result] = field(default_factory=list)
    states: list[Any] = field(default_factory=list)


def fork_available() -> bool:
    return hasattr(os, "fork")


def run_forked(
    items: Sequence[Item],
    work: Callable[[Item], Result],
    *,
    processes: int,
    first: Callable[[], None] | None = None,
    finish: Callable[[], Any] | None = None,
    done: Callable[[Result], None] | None = None,
) -> Forked[Result]:
    """Call `work(item)` once for every item, in this process and in up to `processes - 1` forked
    children (never more children than items), each process taking the next item not taken yet.

    - `first`: run here before this process takes items (the children work meanwhile).
    - `finish`: run in each child after its last item; what it returns (picklable) is handed back
      in `states`.
    - `done`: called here with each result: this process's once it has no item left to take, the
      children's once every child has ended.

    Every database connection is closed before the fork, so that no child shares this process's; a
    child closes its own before it leaves. A child's failure is raised here as ChildProcessFailed
    once every child has ended; a failure here is raised once every child has ended too."""
    taken = multiprocessing.get_context("fork").Value("i", 0)

    def take() -> list[tuple[int, Result]]:
        results: list[tuple[int, Result]] = []
        while True:
            with taken.get_lock():
                index = taken.value
                taken.value += 1
            if index >= len(items):
                return results
            results.append((index, work(items[index])))

    connections.close_all()
    children = [_fork(take, finish) for _ in range(min(processes - 1, len(items)))]
    indexed: list[tuple[int, Result]] = []
    try:
        if first is not None:
            first()
        for index, result in take():
            indexed.append((index, result))
            if done is not None:
                done(result)
    finally:
        answers = [_answer(pid, read_end) for pid, read_end in children]
    failed = [answer for kind, answer, _ in answers if kind == "failed"]
    if failed:
        raise ChildProcessFailed(f"a child process failed:\n{failed[0]}")
    for _, answer, _ in answers:
        indexed += answer
        if done is not None:
            for _, result in answer:
                done(result)
    return Forked(
        results=[result for _, result in sorted(indexed, key=lambda pair: pair[0])],
        states=[state for _, _, state in answers],
    )


def _fork(take: Callable[[], list[tuple[int, Any]]], finish: Callable[[], Any] | None) -> tuple[int, int]:
    """Fork a child that takes items, answers through a pipe and leaves; (its pid, the pipe's read end)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        status = 0
        answer: Answer
        try:
            results = take()
            answer = ("done", results, finish() if finish is not None else None)
        except BaseException:  # noqa: BLE001 (any failure is handed to the parent)
            answer, status = ("failed", traceback.format_exc(), None), 1
        try:
            with os.fdopen(write_end, "wb") as pipe:
                pickle.dump(answer, pipe)
            connections.close_all()
        finally:
            os._exit(status)
    os.close(write_end)
    return pid, read_end


def _answer(pid: int, read_end: int) -> Answer:
    """A child's answer, once it has ended."""
    answer: Answer
    with os.fdopen(read_end, "rb") as pipe:
        try:
            answer = pickle.load(pipe)  # noqa: S301 (our own child's answer)
        except EOFError:
            answer = ("failed", f"process {pid} ended without an answer", None)
    os.waitpid(pid, 0)
    return answer


def exit_description(code: int) -> str:
    """How a child ended, for a person: `status 1`, or `signal SIGKILL`."""
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"status {code}"


class Supervised:
    """A child process kept running (`runpit`'s workers and beat): when it ends on its own it is
    started again, at once after a long life, after 1, 3, 7, 15 then 30 s when it keeps ending
    within QUICK_DEATH_SECONDS of its start; each end and restart is said through `say`."""

    QUICK_DEATH_SECONDS = 30.0
    MAX_DELAY_SECONDS = 30.0

    def __init__(self, label: str, start: Callable[[], subprocess.Popen[str]], say: Callable[[str], object]) -> None:
        self.label, self._start, self.say = label, start, say
        self.process = start()
        self.started_at = time.monotonic()
        self.quick_deaths = 0
        self.restart_at: float | None = None
        self.restarts = 0

    def check(self) -> None:
        """Notice an end, and restart when due (call it every second or so)."""
        now = time.monotonic()
        if self.restart_at is None:
            code = self.process.poll()
            if code is None:
                return
            self.quick_deaths = self.quick_deaths + 1 if now - self.started_at < self.QUICK_DEATH_SECONDS else 0
            delay = min(2.0**self.quick_deaths - 1, self.MAX_DELAY_SECONDS)
            self.say(
                f"runpit: the {self.label} (pid {self.process.pid}) ended with {exit_description(code)}; "
                + (f"restarting it in {delay:.0f} s" if delay else "restarting it")
            )
            self.restart_at = now + delay
        if now >= self.restart_at:
            self.process = self._start()
            self.started_at, self.restart_at = time.monotonic(), None
            self.restarts += 1
            self.say(f"runpit: the {self.label} restarted (pid {self.process.pid})")
