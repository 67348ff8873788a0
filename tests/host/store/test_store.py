"""The store contract, run against SQLite and a real PostgreSQL server alike."""

from __future__ import annotations

import threading

from tooldeck import PendingChange, PendingEntry, PermissionRule


def rule(resource, action="edit"):
    return PermissionRule(action=action, resource=resource, effect="allow")


def entry(pending_id, session="s1", created=1.0):
    return PendingEntry(pending_id, session, created, created + 100, '{"x": 1}')


def test_approvals_are_a_set_kept_in_saving_order(store):
    assert store.approvals() == ()
    assert store.add_approvals([rule("b"), rule("a")]) == (rule("b"), rule("a"))
    assert store.add_approvals([rule("a"), rule("c")]) == (rule("b"), rule("a"), rule("c"))
    assert store.approvals() == (rule("b"), rule("a"), rule("c"))


def test_a_principals_approvals_are_its_own_and_apart_from_the_locations(store, reopen):
    store.add_approvals([rule("loc")])
    assert store.add_approvals([rule("a"), rule("b")], "alice") == (rule("a"), rule("b"))
    assert store.add_approvals([rule("b"), rule("c")], "alice") == (rule("a"), rule("b"), rule("c"))
    assert store.add_approvals([rule("a")], "bob") == (rule("a"),)
    other = reopen()  # another process sees them, each under its own key
    assert other.approvals("alice") == (rule("a"), rule("b"), rule("c"))
    assert other.approvals("bob") == (rule("a"),)
    assert other.approvals("carol") == ()
    assert other.approvals() == (rule("loc"),)  # the Location's never mix with a principal's


def test_pending_entries_round_trip_and_list_open_ones_by_session(store):
    store.add_pending(entry("p1", "s1", 1.0))
    store.add_pending(entry("p2", "s2", 2.0))
    store.add_pending(entry("p3", "s1", 3.0))
    assert store.get_pending("p2") == entry("p2", "s2", 2.0)
    assert store.get_pending("nope") is None
    assert [e.id for e in store.list_pending()] == ["p1", "p2", "p3"]
    assert [e.id for e in store.list_pending("s1")] == ["p1", "p3"]
    assert store.transition("p1", "open", "", PendingChange("claimed", "me", 5.0, reply='"once"'))
    assert [e.id for e in store.list_pending("s1")] == ["p3"]  # claimed is no longer open


def test_transition_is_a_compare_and_set(store):
    store.add_pending(entry("p1"))
    claim = PendingChange("claimed", "a", 10.0, reply='"once"')
    assert not store.transition("p1", "claimed", "", claim)  # wrong state
    assert store.transition("p1", "open", "", claim)
    assert not store.transition("p1", "open", "", PendingChange("claimed", "b", 10.0))
    assert not store.transition("p1", "claimed", "b", PendingChange("running", "b", 10.0))
    assert store.transition("p1", "claimed", "a", PendingChange("running", "a", 20.0))
    assert store.transition("p1", "running", "a", PendingChange("done", "a", outcome='{"o": 1}'))
    done = store.get_pending("p1")
    assert (done.state, done.owner, done.reply, done.outcome) == ("done", "a", '"once"', '{"o": 1}')
    assert not store.transition("nope", "open", "", claim)


def test_two_store_objects_see_each_others_writes(store, reopen):
    other = reopen()
    store.add_approvals([rule("a")])
    other.add_approvals([rule("b")])
    store.add_pending(entry("p1"))
    assert store.approvals() == other.approvals() == (rule("a"), rule("b"))
    assert other.get_pending("p1") == entry("p1")


def test_of_racing_claims_exactly_one_wins(store, reopen, join_threads):
    store.add_pending(entry("p1"))
    stores = [reopen() for _ in range(6)]
    won: list[str] = []
    start = threading.Barrier(len(stores))

    def claim(index, each):
        start.wait()
        if each.transition("p1", "open", "", PendingChange("claimed", f"o{index}", 10.0)):
            won.append(f"o{index}")

    threads = [threading.Thread(target=claim, args=item) for item in enumerate(stores)]
    for thread in threads:
        thread.start()
    join_threads(*threads)
    assert len(won) == 1
    assert store.get_pending("p1").owner == won[0]
