"""Who hears the asks of a ``PermissionService``: nobody, unless tracing is on.

``PermissionService.observer`` is ``NO_OBSERVER`` until ``telemetry/asks.py`` installs
one that records on the call's span, so ``assert_`` tells its observer everything
without checking whether there is one, and with none it pays a no-op call per step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Protocol


class AskObserver(Protocol):
    """Hears each ``assert_`` in the task of the call that asked (``telemetry/asks.py``).

    ``asked`` comes first, with every resource the tool named; one of ``answered`` or
    ``allowed`` follows once. ``answered`` has the reply (``once``, ``always``,
    ``reject``, ``feedback`` for a ``Reject``, ``denied``, ``deferred``, ``declined``
    when there is no asker, ``invalid``, or ``raised <Error>``) and who gave it
    (``asker``, ``sibling``, ``resume``, ``rules`` or ``host``). ``allowed`` means the
    rules settled it without asking; ``reply()`` says whether an allow rule (``allowed``)
    or a saved approval (``saved``) did. It is a callable because telling the two apart
    matches the rules again: work an observer that records nothing must not cost.
    """

    def asked(self, action: str, resources: tuple[str, ...]) -> None: ...

    def answered(self, reply: str, by: str) -> None: ...

    def allowed(self, reply: Callable[[], str]) -> None: ...


class NoObserver:
    """The observer of a service nobody listens to: every step is a no-op."""

    __slots__ = ()

    def asked(self, action: str, resources: tuple[str, ...]) -> None:
        pass

    def answered(self, reply: str, by: str) -> None:
        pass

    def allowed(self, reply: Callable[[], str]) -> None:
        pass


NO_OBSERVER: Final = NoObserver()
