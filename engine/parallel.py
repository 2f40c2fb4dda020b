"""Row work shared between this thread and a small pool, for numpy loops that release the GIL.

numpy gives up the GIL inside a `take` or an arithmetic operation on numeric
arrays, so blocks of rows handled by two threads run on two cores. The pool is
created on first use and shared by every caller (a worker thread of the
workbench and the command line alike); its threads sleep when there is no work.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from typing import TypeVar

_S = TypeVar("_S")
_R = TypeVar("_R")

#: The most threads a loop shares its work with (row work is bound by memory
#: bandwidth long before this many cores are busy).
MAX_THREADS = 4

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def default_threads() -> int:
    """Threads to use by default: the cores this process may run on, at most `MAX_THREADS`."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(MAX_THREADS, cores))


def _shared_pool() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(MAX_THREADS - 1, thread_name_prefix="chunkscope-rows")
        return _pool


def run_shared(tasks: Sequence[Callable[[_S], None]], states: Sequence[_S]) -> None:
    """Run every task once, on ``len(states)`` threads, each with its own state.

    This thread is one of them. Each thread takes the next task not yet taken (put
    tasks in decreasing size for balance), so a thread of the pool that the system
    runs late, on a machine busy with other work, leaves its share to the others
    rather than holding them up (taking a task is one step of a shared iterator,
    under the GIL the thread holds anyway). Returns when all are done; the first
    exception raised by a task is raised here, after every thread has stopped.
    """
    parts = min(len(states), len(tasks))
    if parts <= 1:
        for task in tasks:
            task(states[0])
        return
    pending = iter(tasks)

    def share(i: int) -> None:
        state = states[i]
        for task in pending:
            task(state)

    pool = _shared_pool()
    futures = [pool.submit(share, i) for i in range(1, parts)]
    try:
        share(0)
    finally:
        wait(futures)
    for future in futures:
        future.result()


def in_background(task: Callable[[], _R]) -> Callable[[], _R]:
    """Start `task` on the shared pool; the returned function waits for its result
    (or raises its exception). For work that lets go of the GIL (tiktoken, numpy)
    while this thread does something else."""
    future = _shared_pool().submit(task)
    return future.result
