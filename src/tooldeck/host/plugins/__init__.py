"""Plugins: discovery in a total order, selection, pluggy wiring, the load report and
``Host``, which ties a Location, its plugins and its ``ToolService`` together."""
