"""engine.parallel: every task runs once, each thread with its own state, errors come out."""

from __future__ import annotations

import threading

import pytest

from chunkscope.engine.parallel import MAX_THREADS, default_threads, run_shared


def test_every_task_runs_once_with_its_threads_state() -> None:
    seen: list[tuple[int, int, str]] = []
    lock = threading.Lock()

    def task(i: int) -> object:
        def run(state: list[str]) -> None:
            with lock:
                seen.append((i, id(state), threading.current_thread().name))

        return run

    states: list[list[str]] = [[], [], []]
    run_shared([task(i) for i in range(10)], states)
    assert sorted(i for i, _, _ in seen) == list(range(10))
    # task i runs with state i % 3
    by_task = {i: sid for i, sid, _ in seen}
    assert all(by_task[i] == id(states[i % 3]) for i in range(10))
    # one share runs on the calling thread; a share's tasks all run on one thread
    assert {name for i, _, name in seen if i % 3 == 0} == {threading.current_thread().name}
    for share in (1, 2):
        assert len({name for i, _, name in seen if i % 3 == share}) == 1


def test_one_state_or_one_task_stays_on_the_calling_thread() -> None:
    names: list[str] = []

    def run(_: None) -> None:
        names.append(threading.current_thread().name)

    run_shared([run, run], [None])
    run_shared([run], [None, None])
    run_shared([], [None, None])
    assert names == [threading.current_thread().name] * 3


def test_an_error_comes_out_after_every_share_finished() -> None:
    done: list[int] = []
    release = threading.Event()

    def slow(_: None) -> None:
        release.wait(5)
        done.append(1)

    def fail(_: None) -> None:
        release.set()
        raise ValueError("bad block")

    with pytest.raises(ValueError, match="bad block"):
        run_shared([fail, slow], [None, None])
    assert done == [1]  # the other thread's task had finished before the error came out


def test_default_threads_is_within_bounds() -> None:
    assert 1 <= default_threads() <= MAX_THREADS
