"""The call boundary every way of running a tool crosses: ``run_tool_call`` and its
layers (deferral, limits, hooks, then the tool), listed once in ``boundary.py``; the
outcome values; pending calls and their resume."""
