"""Resources and prompts: what a client reads and gets from a catalog beside its tools.

Registered like tools (``host/registry``); here they are found, permitted, run and
laid out for whoever serves them (``tooldeck mcp serve``).
"""
