"""A measurement of time holds its lane alone: work beside it waits while it runs, and
a measurement that is waiting is not starved by a stream of short steps."""

from __future__ import annotations

import threading
import time

from iwcbench.pipeline.kits import lanes


def test_work_beside_waits_while_the_measurement_runs(monkeypatch, tmp_path):
    monkeypatch.setattr(lanes, "_FOLDER", tmp_path)
    events: list[str] = []
    holding = threading.Event()

    def measure() -> None:
        with lanes.alone("t", 5.0) as held:
            assert held
            events.append("measure starts")
            holding.set()
            time.sleep(0.3)
            events.append("measure ends")

    thread = threading.Thread(target=measure)
    thread.start()
    holding.wait(5)
    with lanes.beside("t", 5.0) as waited:
        events.append("step")
    thread.join()
    assert events == ["measure starts", "measure ends", "step"]
    assert waited >= 0.2


def test_a_waiting_measurement_is_not_starved_by_short_steps(monkeypatch, tmp_path):
    monkeypatch.setattr(lanes, "_FOLDER", tmp_path)
    stop = threading.Event()
    steps_after: list[float] = []
    measured: list[float] = []

    def stepping() -> None:
        while not stop.is_set():
            with lanes.beside("t", 5.0):
                time.sleep(0.01)
                if measured:
                    steps_after.append(time.monotonic())

    thread = threading.Thread(target=stepping)
    thread.start()
    time.sleep(0.1)
    with lanes.alone("t", 2.0) as held:
        measured.append(time.monotonic())
        time.sleep(0.2)
        during = len(steps_after)
    stop.set()
    thread.join()
    assert held and during == 0


def test_a_lane_held_too_long_is_given_up_after_the_wait(monkeypatch, tmp_path):
    monkeypatch.setattr(lanes, "_FOLDER", tmp_path)
    release = threading.Event()
    holding = threading.Event()

    def hold() -> None:
        with lanes.beside("t", 1.0):
            holding.set()
            release.wait(5)

    thread = threading.Thread(target=hold)
    thread.start()
    holding.wait(5)
    began = time.monotonic()
    with lanes.alone("t", 0.3) as held:
        assert not held
    assert time.monotonic() - began < 2
    release.set()
    thread.join()
