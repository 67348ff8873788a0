"""The project layer: what a project config says that combines with the user's by a law
of its own instead of replacing it (DESIGN §7a).

Most project keys replace the user's value (a limit, a tool option): they grant nothing.
Two kinds never replace, trusted or not, so that no position in a file decides who wins:

* **permission rules**: the project's ``[[permission]]`` rules and its principals' own
  rules are a layer of their own, combined with the user's by *strictest wins*
  (``host/permissions/layers.py``); while the folder is untrusted, the project's
  ``allow`` is no opinion;
* **plugin selection**: the project's ``[plugins]`` narrows the user's selection (its
  ``disable`` adds to the user's, its ``only`` filters further, its ``order`` moves after
  the user's), and never switches off or reorders below a tool a hook plugin the user
  installed (``host/plugins/selection.py``).

``layered_config`` takes them out of the project table before the rest is merged over
the user's, and returns them as a ``ProjectLayer``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tooldeck.host.config.config import Config, PermissionRule, PluginsConfig
from tooldeck.host.config.config_files import ConfigSource, merged_config, validate

PrincipalRules = tuple[tuple[str, tuple[PermissionRule, ...]], ...]
"""Each served principal's own rules in the project file, by name (sorted)."""


@dataclass(frozen=True, slots=True)
class ProjectLayer:
    """The project's rules and plugin selection, kept apart from the merged config.

    ``trusted``: whether the project's ``allow`` rules count (an untrusted folder's
    narrowed config has no principals, so their rules are only here when trusted).
    """

    permission: tuple[PermissionRule, ...] = ()
    principals: PrincipalRules = ()
    plugins: PluginsConfig = field(default_factory=PluginsConfig.model_construct)
    trusted: bool = True
    user_servers: frozenset[str] = frozenset()
    """The ``[mcp.servers]`` only the user file names, the project's (as narrowed) not at
    all: each is the same server in every folder, so its kept listing is shared
    (``mcp/client/cache.py``)."""

    def principal_rules(self, name: str) -> tuple[PermissionRule, ...]:
        """The project's own rules for the served principal ``name`` (often none)."""
        return next((rules for who, rules in self.principals if who == name), ())

    @property
    def empty(self) -> bool:
        """Nothing here: the Location decides and selects by the user's config alone."""
        plugins = self.plugins
        selects = plugins.disable or plugins.only is not None or plugins.order
        return not (self.permission or self.principals or selects)


NO_PROJECT = ProjectLayer()
"""The layer of a Location without a project file (or one built by hand)."""


def layered_config(
    user: ConfigSource | None, project: ConfigSource | None, *, trusted: bool
) -> tuple[Config, ProjectLayer]:
    """The merged config and the project layer of a folder whose user and project
    config layers are ``user`` and ``project`` (the project already narrowed when the
    folder is untrusted); ``trusted``: whether the project's ``allow`` rules count."""
    user_servers = _servers(user) - _servers(project)
    if project is None:
        layer = ProjectLayer(user_servers=user_servers) if user_servers else NO_PROJECT
        return merged_config(user, None), layer
    own = validate(project)
    rest = project._replace(data=_without_layered(project.data))
    principals = tuple(
        (name, principal.permission)
        for name, principal in sorted(own.mcp.serve.principals.items())
        if principal.permission
    )
    layer = ProjectLayer(own.permission, principals, own.plugins, trusted, user_servers)
    return merged_config(user, rest), layer


def _servers(source: ConfigSource | None) -> frozenset[str]:
    """The server names a config layer's ``[mcp.servers]`` holds (validated already)."""
    servers = source.data.get("mcp", {}).get("servers", {}) if source is not None else {}
    return frozenset(servers)


def _without_layered(table: Mapping[str, Any]) -> dict[str, Any]:
    """``table`` without what the project layer holds: its rules (its principals' too)
    and its ``[plugins]``."""
    rest = {k: v for k, v in table.items() if k not in ("permission", "plugins")}
    principals = rest.get("mcp", {}).get("serve", {}).get("principals")
    if principals:
        rest["mcp"] = {
            **rest["mcp"],
            "serve": {
                **rest["mcp"]["serve"],
                "principals": {
                    name: {k: v for k, v in entry.items() if k != "permission"}
                    for name, entry in principals.items()
                },
            },
        }
    return rest
