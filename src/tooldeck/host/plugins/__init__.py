"""Plugins: discovery in a total order, selection, pluggy wiring, the records kept in line
with what is installed (``sync``), the load report and ``Host``, which ties a Location,
its plugins and its ``ToolService`` together."""
