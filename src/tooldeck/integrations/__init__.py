"""tooldeck inside agent frameworks: ``tooldeck.integrations.pydantic_ai`` (extra
``tooldeck[pydantic-ai]``) and ``tooldeck.integrations.openai_agents`` (extra
``tooldeck[openai-agents]``).

Each module imports its framework when it is imported, and only then: ``import
tooldeck`` never loads one. Both call tools through ``run_tool_call``, so a call made
by a framework is validated, checked, bounded and classified exactly as a call made by
tooldeck's own agent loop. ``docs/integrations.md`` shows each at work.
"""
