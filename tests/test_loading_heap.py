"""`loading_heap`: no cyclic collection during a load, the loaded heap frozen after it."""

from __future__ import annotations

import gc
import threading
from pathlib import Path

from chunkscope.tui.workbench.loader import loading_heap


class Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cyclic collector frees it


def test_collection_is_off_during_a_load_and_the_survivors_are_frozen() -> None:
    assert gc.isenabled()
    gc.collect()
    frozen = gc.get_freeze_count()
    with loading_heap():
        assert not gc.isenabled()
        kept = [Node() for _ in range(100)]
        assert gc.collect(0) >= 0  # an explicit collection still works
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen + 100  # the loaded objects are frozen
    assert all(n.me is n for n in kept)


def test_a_load_starts_by_collecting_earlier_garbage() -> None:
    gc.disable()  # no automatic collection anywhere in this test
    try:
        garbage = Node()
        ref = id(garbage)
        del garbage

        def alive() -> bool:
            return any(id(o) == ref and isinstance(o, Node) for o in gc.get_objects())

        assert alive()
        with loading_heap():
            assert not alive()
    finally:
        gc.enable()


def test_garbage_an_earlier_load_froze_is_collected_by_the_next() -> None:
    """Garbage frozen with a load's heap (in the permanent generation, out of the
    collector's sight) is freed when the next load starts: it collects the old
    generation too, not only the young ones it collects when nothing is frozen."""
    import weakref

    gc.disable()  # no automatic collection anywhere in this test
    try:
        with loading_heap():
            garbage = Node()
            ref = weakref.ref(garbage)
            del garbage
        assert gc.get_freeze_count() > 0
        assert ref() is not None  # frozen: no collection sees it
        with loading_heap():
            assert ref() is None
    finally:
        gc.unfreeze()
        gc.enable()


def test_overlapping_loads_reenable_collection_once_both_end() -> None:
    first_in, second_done = threading.Event(), threading.Event()
    states: list[bool] = []

    def first() -> None:
        with loading_heap():
            first_in.set()
            second_done.wait(5)
            states.append(gc.isenabled())  # the other load ended: still off

    t = threading.Thread(target=first)
    t.start()
    first_in.wait(5)
    with loading_heap():
        pass
    states.append(gc.isenabled())  # one load still running
    second_done.set()
    t.join(5)
    assert states == [False, False]
    assert gc.isenabled()


def test_collection_stays_off_if_it_was_off() -> None:
    gc.disable()
    try:
        with loading_heap():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_used_pipeline_is_freed_without_the_collector(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """What a load builds is frozen, so the collector never frees it: a pipeline must
    be freed by refcounting alone when another file replaces it (no reference cycle,
    e.g. a warning callback bound to the pipeline itself)."""
    import weakref

    from chunkscope.engine.pipeline import Pipeline, PipelineParams
    from chunkscope.tui.workbench.runs import Derived, build_view

    monkeypatch.setenv("CHUNKSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    log = Path(__file__).resolve().parents[1] / "sample_logs" / "cache_refactor.jsonl"
    gc.collect()
    gc.disable()
    try:
        pipe = Pipeline(log, PipelineParams(collapse=True))
        view = build_view(pipe, "compacted", Derived(), threading.Lock(), with_tokens=False)
        pipe.summaries()
        pipe.recap()
        pipe.cache.get_json_many("x", ["k"])  # the on-disk cache, opened
        pipe.strategy_result()
        refs = [weakref.ref(pipe), weakref.ref(pipe.cache), weakref.ref(pipe.merged())]
        del pipe, view
        assert [r() is None for r in refs] == [True, True, True]
    finally:
        gc.enable()


def test_gc_paused_in_other_threads_cannot_leave_the_collector_off() -> None:
    """Pauses are counted across threads: a load and slider re-runs that overlap in any
    order leave the collector on once all of them are done."""
    from chunkscope.engine.model import gc_paused

    stop = threading.Event()

    def reruns() -> None:
        while not stop.is_set():
            with gc_paused():
                pass

    threads = [threading.Thread(target=reruns) for _ in range(2)]
    for t in threads:
        t.start()
    try:
        for k in range(300):
            if k % 100 == 0:  # a load starts with a full collection: only a few of them
                with loading_heap():
                    pass
            with gc_paused():
                pass
    finally:
        stop.set()
        for t in threads:
            t.join(5)
    assert gc.isenabled()
