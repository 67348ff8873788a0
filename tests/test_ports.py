"""``tests/ports.py``: the free ports each pytest-xdist worker hands out are its own."""

from __future__ import annotations

import pytest

from . import ports


@pytest.mark.parametrize("worker", ["gw0", "gw1", "gw2"])
def test_a_worker_hands_out_only_its_share_and_never_twice(monkeypatch, worker):
    monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "3")
    monkeypatch.setattr(ports, "_handed_out", set())
    handed = [ports.free_port() for _ in range(20)]
    assert len(set(handed)) == 20
    assert {ports._owner(port, 3) for port in handed} == {int(worker[2:])}


def test_without_xdist_every_port_is_this_process_s(monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)
    assert ports._worker() == (0, 1)
