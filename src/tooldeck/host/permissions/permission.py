"""Permission rules, asks, and the "always" memory of one Location (DESIGN §7).

Policy are ``{action, resource, effect}`` with effect ``allow | ask | deny``; inside one
file the last matching rule wins, the user's and the project's rules combine by strictest
wins (``layers.py``), and nothing matching means ``ask``. Patterns are those of
``tooldeck.host.permissions.wildcard`` (``*``, ``?``, ``**/``; ``"git status *"`` also matches
``"git status"``; ``*`` stays inside one segment of a path pattern).

Three layers decide one resource:

1. the **policy**: built-in defaults (``read``, ``glob``, ``grep``, ``question`` allow)
   under the user's configured ``[[permission]]`` rules, combined with the project's;
2. the **approvals**: allow rules saved by "always" replies, kept in the Location's
   store and read again before anyone is asked (another process sharing the store may
   have saved one). They sit above the policy's ``allow``/``ask`` rules
   but never lift a policy ``deny``: a deny is policy, an "always" is a convenience, and
   a broad saved pattern (``git *``) must not undo ``deny "git push *"``;
3. the **asker** (the Location's ``asker``) for whatever is still ``ask``, unless asks are
   deferred (``on_ask="defer"``, see ``asks.py``): then the ask raises
   ``PermissionDeferred`` and the call ends ``pending``. Answers put in place for a
   resumed call answer the asks they match without asking anyone.

An ``AskObserver`` (``PermissionService.observer``, set by tracing) hears every ask and
how it was settled, whichever layer settled it; by default ``NO_OBSERVER`` hears nothing.

The service is given what it decides with, not the Location that composes it: the
root, the policy of the current config, the store (opened only when an approval is
read or saved), the asker and the default ``on_ask``. The asker and ``on_ask`` are read
when an ask reaches them, so a Location whose ``asker`` is replaced asks the new one.

An absolute resource inside the Location is also matched by its root-relative form,
so a configured ``src/**`` covers ``<root>/src/a.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath
from types import MappingProxyType
from typing import Any

from tooldeck._public import public
from tooldeck.errors import (
    PermissionBlocked,
    PermissionCorrected,
    PermissionDeclined,
    PermissionDeferred,
    ReplyError,
)
from tooldeck.host.config.config import PermissionRule
from tooldeck.host.permissions import call_rules
from tooldeck.host.permissions.approvals import Approvals
from tooldeck.host.permissions.asks import OnAsk, answer_in_place, deferring
from tooldeck.host.permissions.inflight import Pending
from tooldeck.host.permissions.layers import Policy
from tooldeck.host.permissions.observer import NO_OBSERVER, AskObserver
from tooldeck.host.permissions.request import Asker, PermissionRequest, Reject, Reply
from tooldeck.host.permissions.wildcard import Effect
from tooldeck.host.store.base import Store

__all__ = ["PermissionGate", "PermissionService", "principal_rules"]


@public
class PermissionService:
    """Rule evaluation and asks for one Location (``Location.permission``, which builds it).

    ``root``: absolute resources under it also match by their root-relative form.
    ``policy``: the policy of the current config (called per decision; cheap).
    ``open_store`` opens the store to save approvals in; ``saved_store`` returns it only
    if anything may be saved in it yet (reading must not create one). ``asker`` and
    ``on_ask`` return the Location's asker and default ``on_ask`` when an ask needs them.
    """

    def __init__(
        self,
        *,
        root: Path,
        policy: Callable[[], Policy],
        open_store: Callable[[], Store],
        saved_store: Callable[[], Store | None],
        asker: Callable[[], Asker | None],
        on_ask: Callable[[], OnAsk],
    ) -> None:
        self._root = root
        self._policy = policy
        self._open_store = open_store
        self._saved_store = saved_store
        self._asker = asker
        self._on_ask = on_ask
        self._approvals = Approvals(open_store, saved_store)
        self._principals: dict[str, Approvals] = {}
        self._pending: dict[str, list[Pending]] = {}
        self._pending_lock = threading.Lock()
        self.observer: AskObserver = NO_OBSERVER

    def _approvals_of(self, name: str) -> Approvals:
        """The approvals saved for one served principal (``principal_rules``), read from
        the store on first use (blocking I/O) and kept for the life of this service."""
        approvals = self._principals.get(name)
        if approvals is None:
            approvals = Approvals(self._open_store, self._saved_store, name)
            approvals = self._principals.setdefault(name, approvals)
        return approvals

    def evaluate(self, action: str, resource: str) -> Effect:
        """The effect of the rules (policy and approvals) for one resource."""
        rule = self._decide(action, resource)
        return rule.effect if rule is not None else "ask"

    def visibility(self) -> Policy:
        """The policy as a hashable ``Visibility`` for ``service.snapshot(permissions=)``.

        Approvals are left out: they only allow, and never lift a policy deny, so they
        cannot change what is wholly denied.
        """
        return self._policy()

    def gate(self, source: Mapping[str, Any], *, session_id: str = "") -> PermissionGate:
        """This service bound to one call's source and session (``ctx.permission``)."""
        return PermissionGate(self, source, session_id)

    async def assert_(
        self,
        action: str,
        resources: Sequence[str],
        *,
        source: Mapping[str, Any],
        session_id: str = "",
        save: Sequence[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> None:
        """Return when allowed; raise ``PermissionBlocked`` (a deny rule),
        ``PermissionDeclined`` ("reject", or no asker) or ``PermissionCorrected``
        (``Reject(feedback)``). Asks at most once, for the resources still at ``ask``.

        No resources means the action as a whole (resource ``*``).
        """
        wanted = (resources,) if isinstance(resources, str) else tuple(resources) or ("*",)
        observer = self.observer
        observer.asked(action, wanted)
        await self._approvals.load()  # opens the store in a thread, never on the loop
        try:
            asked = self._to_ask(action, wanted)
        except PermissionBlocked:
            observer.answered("denied", "rules")
            raise
        if asked and await self._refreshed():  # another process may have said "always"
            asked = self._to_ask(action, wanted)
        if not asked:
            observer.allowed(lambda: self._allowed_by(action, wanted))
            return
        request = PermissionRequest(
            action,
            asked,
            tuple(save) if save is not None else asked,
            MappingProxyType(dict(metadata or {})),
            MappingProxyType(dict(source)),
            session_id,
        )
        pending = Pending(request)
        answer = answer_in_place(action, asked)
        if answer is not None:
            observer.answered(_named(answer), "resume")
            await self._settle(pending, answer, True)
            return
        if deferring(self._on_ask()):
            observer.answered("deferred", "host")
            raise PermissionDeferred(request)
        asker = self._asker()
        if asker is None:
            observer.answered("declined", "host")
            raise PermissionDeclined(action, asked)
        with self._tracked(pending):
            try:
                reply, from_sibling = await pending.run(asker)
            except BaseException as exc:
                observer.answered(f"raised {type(exc).__name__}", "asker")
                raise
            observer.answered(_named(reply), "sibling" if from_sibling else "asker")
            await self._settle(pending, reply, from_sibling)

    async def _refreshed(self) -> bool:
        """Read the approvals that apply to this call from the store again, before asking
        anyone: True if another process saved some since they were last read."""
        principal = call_rules.current()  # a principal's own, then the Location's
        mine = await principal.refresh() if principal is not None else False
        return await self._approvals.refresh() or mine

    def save(self, action: str, patterns: Sequence[str]) -> None:
        """Save allow rules for ``action`` as an "always" reply does (blocking I/O): for
        the served principal whose call this is (``call_rules``), else for the Location.
        A resumed call's ``always`` comes through here too, so it lands where an asked
        one does."""
        rules = tuple(
            PermissionRule(action=action, resource=pattern, effect="allow") for pattern in patterns
        )
        principal = call_rules.current()
        if principal is not None:  # a served principal's answer is that principal's alone
            principal.approve(rules)
        else:
            self._approvals.add(rules)

    def _decide(self, action: str, resource: str) -> PermissionRule | None:
        names = self._names(resource)
        principal = call_rules.current()  # a served principal's rules replace the policy
        rules = principal.policy if principal is not None else self._policy()
        policy = rules.rule_for(action, names)
        if _denies(policy):
            return policy
        mine = principal.approved(action, names) if principal is not None else None
        return mine or self._approvals.rules.rule_for(action, names) or policy

    def _allowed_by(self, action: str, resources: tuple[str, ...]) -> str:
        """``saved`` when a saved approval allowed some resource the policy alone would
        ask about, else ``allowed`` (only for an observer: it matches the rules again)."""
        principal = call_rules.current()
        rules = principal.policy if principal is not None else self._policy()
        for resource in resources:
            rule = rules.rule_for(action, self._names(resource))
            if rule is None or rule.effect != "allow":
                return "saved"
        return "allowed"

    def _names(self, resource: str) -> tuple[str, ...]:
        """The resource, plus its root-relative form when it is a path in the Location."""
        if not os.path.isabs(resource):
            return (resource,)
        try:
            relative = PurePath(resource).relative_to(self._root)
        except ValueError:
            return (resource,)
        return (resource, relative.as_posix())

    def _to_ask(self, action: str, resources: tuple[str, ...]) -> tuple[str, ...]:
        """Resources still at ``ask``; raises ``PermissionBlocked`` if any is denied."""
        rules = [self._decide(action, resource) for resource in resources]
        denied = [(r, rule) for r, rule in zip(resources, rules, strict=True) if _denies(rule)]
        if denied:
            raise PermissionBlocked(action, [r for r, _ in denied], denied[0][1])
        return tuple(
            resource
            for resource, rule in zip(resources, rules, strict=True)
            if rule is None or rule.effect == "ask"
        )

    async def _settle(self, pending: Pending, reply: object, from_sibling: bool) -> None:
        """Act on the reply: return, save and return, or raise the matching signal."""
        request = pending.request
        if reply == "once":
            return
        if reply == "always":
            await asyncio.to_thread(self.save, request.action, request.save)
            self._settle_covered_siblings(pending)
        elif reply == "reject":
            if not from_sibling:
                self._settle_siblings(pending, lambda _request: "reject")
            raise PermissionDeclined(request.action, request.resources)
        elif isinstance(reply, Reject):
            raise PermissionCorrected(reply.feedback)
        else:
            raise ReplyError(
                f"permission asker returned {reply!r}; expected 'once', 'always', "
                "'reject' or Reject(feedback)"
            )

    def _settle_covered_siblings(self, pending: Pending) -> None:
        """Answer the session's asks that the patterns just saved now cover."""
        self._settle_siblings(pending, lambda other: "once" if self._covered(other) else None)

    def _covered(self, request: PermissionRequest) -> bool:
        return all(self.evaluate(request.action, r) == "allow" for r in request.resources)

    def _settle_siblings(
        self, pending: Pending, answer: Callable[[PermissionRequest], Reply | None]
    ) -> None:
        """Answer the other asks in flight for the same (non-empty) session."""
        session = pending.request.session_id
        with self._pending_lock:
            siblings = [p for p in self._pending.get(session, ()) if p is not pending]
        for sibling in siblings:
            reply = answer(sibling.request)
            if reply is not None:
                sibling.settle(reply)

    @contextlib.contextmanager
    def _tracked(self, pending: Pending) -> Iterator[None]:
        """Register an ask as in flight for its session; "" means no session, untracked."""
        session = pending.request.session_id
        if not session:
            yield
            return
        with self._pending_lock:
            self._pending.setdefault(session, []).append(pending)
        try:
            yield
        finally:
            with self._pending_lock:
                asks = self._pending[session]
                asks.remove(pending)
                if not asks:
                    del self._pending[session]


def _named(reply: object) -> str:
    """A reply as an observer hears it: a ``Reject``'s feedback (the user's words) is left out."""
    if isinstance(reply, Reject):
        return "feedback"
    return str(reply) if reply in ("once", "always", "reject") else "invalid"


def _denies(rule: PermissionRule | None) -> bool:
    return rule is not None and rule.effect == "deny"


@public
@dataclass(frozen=True, slots=True)
class PermissionGate:
    """A ``PermissionService`` bound to one call's canonical source and session."""

    service: PermissionService
    source: Mapping[str, Any]
    session_id: str = ""

    async def assert_(
        self,
        action: str,
        resources: Sequence[str],
        *,
        save: Sequence[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> None:
        """``PermissionService.assert_`` with this gate's source and session."""
        await self.service.assert_(
            action,
            resources,
            source=self.source,
            session_id=self.session_id,
            save=save,
            metadata=metadata,
        )


def principal_rules(service: PermissionService, name: str, policy: Policy) -> call_rules.CallRules:
    """The rules a served principal's calls run under (``call_rules.applying``):
    ``policy``, and the approvals saved for ``name`` in ``service``'s store (read the
    first time this service is asked for them: blocking I/O)."""
    return call_rules.CallRules(name, policy, service._approvals_of(name))
