"""The call boundary every way of running a tool crosses: ``run_tool_call`` and its
layers (limits, then the plugins' hooks, then the tool), listed once in ``boundary.py``;
the outcome values (``outcome.py``); the pending ending of a deferred ask
(``deferred.py``), pending calls and their resume (``pending.py``, ``resume.py``)."""
