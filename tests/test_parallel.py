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
    run_shared([task(i) for i in range(30)], states)
    assert sorted(i for i, _, _ in seen) == list(range(30))
    # each state belongs to one thread, the calling thread's to it
    threads_of = {sid: {name for _, s, name in seen if s == sid} for _, sid, _ in seen}
    assert all(len(names) == 1 for names in threads_of.values())
    assert {id(s) for s in states} >= set(threads_of)
    if id(states[0]) in threads_of:
        assert threads_of[id(states[0])] == {threading.current_thread().name}


def test_a_late_thread_leaves_its_tasks_to_the_others() -> None:
    """The thread that runs the first task stalls until every other task ran: the other
    thread takes them all (with fixed shares it would wait for the stalled one)."""
    done: list[int] = []
    rest_done = threading.Event()
    stalled: list[bool] = []

    def first(_: None) -> None:
        stalled.append(not rest_done.wait(5))

    def other(_: None) -> None:
        done.append(1)
        if len(done) == 9:
            rest_done.set()

    run_shared([first, *[other] * 9], [None, None])
    assert len(done) == 9
    assert stalled == [False]


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
