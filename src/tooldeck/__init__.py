"""tooldeck: host LLM tools as pip-installable plugins.

The public API is one curated list, ``_LOCATIONS`` (``docs/api.md`` describes every
name): ``__all__`` is derived from it, and the ``TYPE_CHECKING`` imports mirror it for
type checkers (a test keeps the two equal). Names are resolved lazily (PEP 562) so that
``import tooldeck`` — and with it ``tooldeck --version`` — stays cheap: typing,
pydantic, jsonschema and the plugin machinery load only when a name that needs them is
used. A class or function defined in a private module reports ``tooldeck`` as its
module from the moment that module is imported (``@public``, ``tooldeck._public``), so
reprs, tracebacks and pickles name its public home however it was reached.
Beside it, the public submodules are ``tooldeck.errors``, ``tooldeck.hookspecs``,
``tooldeck.paths``, ``tooldeck.providers`` and ``tooldeck.testing``; everything under
``tooldeck.host`` is internal.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (mypy knows it)
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from tooldeck._function_tool import tool as tool
    from tooldeck._peer import Elicited as Elicited
    from tooldeck._peer import LogLevel as LogLevel
    from tooldeck._peer import Peer as Peer
    from tooldeck._prompt import Prompt as Prompt
    from tooldeck._prompt import PromptArgument as PromptArgument
    from tooldeck._resource import Resource as Resource
    from tooldeck._resource import ResourceTemplate as ResourceTemplate
    from tooldeck._tool import AnyTool as AnyTool
    from tooldeck._tool import AudioPart as AudioPart
    from tooldeck._tool import AwaitingInput as AwaitingInput
    from tooldeck._tool import Content as Content
    from tooldeck._tool import ContentPart as ContentPart
    from tooldeck._tool import FilePart as FilePart
    from tooldeck._tool import FrozenToolError as FrozenToolError
    from tooldeck._tool import ImagePart as ImagePart
    from tooldeck._tool import ProgressCallback as ProgressCallback
    from tooldeck._tool import SchemaSource as SchemaSource
    from tooldeck._tool import TextPart as TextPart
    from tooldeck._tool import Tool as Tool
    from tooldeck._tool import ToolContext as ToolContext
    from tooldeck._tool import ToolFailure as ToolFailure
    from tooldeck._tool import ToolResult as ToolResult
    from tooldeck.codemode.provider import CodeMode as CodeMode
    from tooldeck.errors import ConfigError as ConfigError
    from tooldeck.errors import ExternalError as ExternalError
    from tooldeck.errors import PackBuildError as PackBuildError
    from tooldeck.errors import PendingCallError as PendingCallError
    from tooldeck.errors import PermissionBlocked as PermissionBlocked
    from tooldeck.errors import PermissionCorrected as PermissionCorrected
    from tooldeck.errors import PermissionDeclined as PermissionDeclined
    from tooldeck.errors import PermissionDeferred as PermissionDeferred
    from tooldeck.errors import PluginError as PluginError
    from tooldeck.errors import QuestionDismissed as QuestionDismissed
    from tooldeck.errors import ReplyError as ReplyError
    from tooldeck.errors import SessionError as SessionError
    from tooldeck.errors import StoreUnavailable as StoreUnavailable
    from tooldeck.errors import TooldeckError as TooldeckError
    from tooldeck.errors import ToolDefectError as ToolDefectError
    from tooldeck.errors import UsageError as UsageError
    from tooldeck.hookspecs import hookimpl as hookimpl
    from tooldeck.hookspecs import hookspec as hookspec
    from tooldeck.host.boundary.boundary import run_tool_call as run_tool_call
    from tooldeck.host.boundary.hooks import ToolCallContext as ToolCallContext
    from tooldeck.host.boundary.outcome import ErrorType as ErrorType
    from tooldeck.host.boundary.outcome import Status as Status
    from tooldeck.host.boundary.outcome import ToolCallOutcome as ToolCallOutcome
    from tooldeck.host.boundary.outcome import ToolError as ToolError
    from tooldeck.host.boundary.pending import PendingCall as PendingCall
    from tooldeck.host.call.values import CallScope as CallScope
    from tooldeck.host.call.values import CallVia as CallVia
    from tooldeck.host.call.values import ExecutedTool as ExecutedTool
    from tooldeck.host.call.values import ToolCall as ToolCall
    from tooldeck.host.config.config import CodemodeConfig as CodemodeConfig
    from tooldeck.host.config.config import Config as Config
    from tooldeck.host.config.config import ImagesConfig as ImagesConfig
    from tooldeck.host.config.config import McpConfig as McpConfig
    from tooldeck.host.config.config import McpServeConfig as McpServeConfig
    from tooldeck.host.config.config import McpServerConfig as McpServerConfig
    from tooldeck.host.config.config import OutputConfig as OutputConfig
    from tooldeck.host.config.config import PermissionRule as PermissionRule
    from tooldeck.host.config.config import PermissionsConfig as PermissionsConfig
    from tooldeck.host.config.config import PluginsConfig as PluginsConfig
    from tooldeck.host.config.config import PrincipalConfig as PrincipalConfig
    from tooldeck.host.config.config import StoreConfig as StoreConfig
    from tooldeck.host.config.config import TelemetryConfig as TelemetryConfig
    from tooldeck.host.config.config import ToolConfig as ToolConfig
    from tooldeck.host.config.config_files import load_config as load_config
    from tooldeck.host.execution.definitions import CodeModeProvider as CodeModeProvider
    from tooldeck.host.execution.definitions import ToolDefinition as ToolDefinition
    from tooldeck.host.execution.definitions import Visibility as Visibility
    from tooldeck.host.execution.snapshot import Snapshot as Snapshot
    from tooldeck.host.handles import Registration as Registration
    from tooldeck.host.handles import SessionScope as SessionScope
    from tooldeck.host.location.location import Location as Location
    from tooldeck.host.location.questions import Answerer as Answerer
    from tooldeck.host.location.questions import Answers as Answers
    from tooldeck.host.location.questions import Option as Option
    from tooldeck.host.location.questions import Question as Question
    from tooldeck.host.location.questions import QuestionGate as QuestionGate
    from tooldeck.host.location.questions import QuestionRequest as QuestionRequest
    from tooldeck.host.location.questions import QuestionService as QuestionService
    from tooldeck.host.permissions.asks import OnAsk as OnAsk
    from tooldeck.host.permissions.layers import Policy as Policy
    from tooldeck.host.permissions.permission import PermissionGate as PermissionGate
    from tooldeck.host.permissions.permission import PermissionService as PermissionService
    from tooldeck.host.permissions.request import Asker as Asker
    from tooldeck.host.permissions.request import PermissionRequest as PermissionRequest
    from tooldeck.host.permissions.request import Reject as Reject
    from tooldeck.host.permissions.request import Reply as Reply
    from tooldeck.host.permissions.wildcard import Effect as Effect
    from tooldeck.host.permissions.wildcard import RuleLike as RuleLike
    from tooldeck.host.permissions.wildcard import Ruleset as Ruleset
    from tooldeck.host.plugins.host import Host as Host
    from tooldeck.host.plugins.report import PluginInfo as PluginInfo
    from tooldeck.host.plugins.report import PluginStatus as PluginStatus
    from tooldeck.host.registry.catalog import Catalog as Catalog
    from tooldeck.host.registry.catalog import SourceEffects as SourceEffects
    from tooldeck.host.registry.editor import CallHookFn as CallHookFn
    from tooldeck.host.registry.editor import CatalogEntry as CatalogEntry
    from tooldeck.host.registry.editor import Diagnostic as Diagnostic
    from tooldeck.host.registry.editor import NamespaceEntry as NamespaceEntry
    from tooldeck.host.registry.editor import ToolEditor as ToolEditor
    from tooldeck.host.registry.editor import UpdateFn as UpdateFn
    from tooldeck.host.registry.features import PromptEntry as PromptEntry
    from tooldeck.host.registry.features import ResourceEntry as ResourceEntry
    from tooldeck.host.registry.session import SessionTransformFn as SessionTransformFn
    from tooldeck.host.registry.steps import TransformFn as TransformFn
    from tooldeck.host.schema.frozen import FrozenDict as FrozenDict
    from tooldeck.host.service import ToolService as ToolService
    from tooldeck.host.store.base import PendingChange as PendingChange
    from tooldeck.host.store.base import PendingEntry as PendingEntry
    from tooldeck.host.store.base import PendingState as PendingState
    from tooldeck.host.store.base import Store as Store
    from tooldeck.host.store.postgres import PostgresStore as PostgresStore
    from tooldeck.host.store.sqlite import SqliteStore as SqliteStore
    from tooldeck.host.trust.items import TrustItem as TrustItem
    from tooldeck.host.trust.items import TrustKind as TrustKind
    from tooldeck.host.trust.project import TrustSource as TrustSource
    from tooldeck.host.trust.project import TrustStatus as TrustStatus
    from tooldeck.host.trust.store import grant_trust as grant_trust
    from tooldeck.host.trust.store import revoke_trust as revoke_trust
    from tooldeck.host.trust.store import trust_status as trust_status
    from tooldeck.host.trust.store import trusted_folders as trusted_folders
    from tooldeck.mcp.client.oauth.signin import AuthorizationRequest as AuthorizationRequest
    from tooldeck.mcp.client.oauth.signin import Authorizer as Authorizer
    from tooldeck.providers import TurnResult as TurnResult
    from tooldeck.providers import run_tool_calls as run_tool_calls
    from tooldeck.telemetry.settings import Telemetry as Telemetry


_LOCATIONS = {
    "Answerer": "tooldeck.host.location.questions",
    "Answers": "tooldeck.host.location.questions",
    "AnyTool": "tooldeck._tool",
    "Asker": "tooldeck.host.permissions.request",
    "AudioPart": "tooldeck._tool",
    "AuthorizationRequest": "tooldeck.mcp.client.oauth.signin",
    "Authorizer": "tooldeck.mcp.client.oauth.signin",
    "AwaitingInput": "tooldeck._tool",
    "CallHookFn": "tooldeck.host.registry.editor",
    "CallScope": "tooldeck.host.call.values",
    "CallVia": "tooldeck.host.call.values",
    "Catalog": "tooldeck.host.registry.catalog",
    "CatalogEntry": "tooldeck.host.registry.editor",
    "CodeMode": "tooldeck.codemode.provider",
    "CodeModeProvider": "tooldeck.host.execution.definitions",
    "CodemodeConfig": "tooldeck.host.config.config",
    "Config": "tooldeck.host.config.config",
    "ConfigError": "tooldeck.errors",
    "Content": "tooldeck._tool",
    "ContentPart": "tooldeck._tool",
    "Diagnostic": "tooldeck.host.registry.editor",
    "Effect": "tooldeck.host.permissions.wildcard",
    "Elicited": "tooldeck._peer",
    "ErrorType": "tooldeck.host.boundary.outcome",
    "ExecutedTool": "tooldeck.host.call.values",
    "ExternalError": "tooldeck.errors",
    "FilePart": "tooldeck._tool",
    "FrozenDict": "tooldeck.host.schema.frozen",
    "FrozenToolError": "tooldeck._tool",
    "Host": "tooldeck.host.plugins.host",
    "ImagePart": "tooldeck._tool",
    "ImagesConfig": "tooldeck.host.config.config",
    "Location": "tooldeck.host.location.location",
    "LogLevel": "tooldeck._peer",
    "McpConfig": "tooldeck.host.config.config",
    "McpServeConfig": "tooldeck.host.config.config",
    "McpServerConfig": "tooldeck.host.config.config",
    "NamespaceEntry": "tooldeck.host.registry.editor",
    "OnAsk": "tooldeck.host.permissions.asks",
    "Option": "tooldeck.host.location.questions",
    "OutputConfig": "tooldeck.host.config.config",
    "PackBuildError": "tooldeck.errors",
    "Peer": "tooldeck._peer",
    "PendingCall": "tooldeck.host.boundary.pending",
    "PendingCallError": "tooldeck.errors",
    "PendingChange": "tooldeck.host.store.base",
    "PendingEntry": "tooldeck.host.store.base",
    "PendingState": "tooldeck.host.store.base",
    "PermissionBlocked": "tooldeck.errors",
    "PermissionCorrected": "tooldeck.errors",
    "PermissionDeclined": "tooldeck.errors",
    "PermissionDeferred": "tooldeck.errors",
    "PermissionGate": "tooldeck.host.permissions.permission",
    "PermissionRequest": "tooldeck.host.permissions.request",
    "PermissionRule": "tooldeck.host.config.config",
    "PermissionService": "tooldeck.host.permissions.permission",
    "PermissionsConfig": "tooldeck.host.config.config",
    "PluginError": "tooldeck.errors",
    "PluginInfo": "tooldeck.host.plugins.report",
    "PluginStatus": "tooldeck.host.plugins.report",
    "PluginsConfig": "tooldeck.host.config.config",
    "Policy": "tooldeck.host.permissions.layers",
    "PostgresStore": "tooldeck.host.store.postgres",
    "PrincipalConfig": "tooldeck.host.config.config",
    "ProgressCallback": "tooldeck._tool",
    "Prompt": "tooldeck._prompt",
    "PromptArgument": "tooldeck._prompt",
    "PromptEntry": "tooldeck.host.registry.features",
    "Question": "tooldeck.host.location.questions",
    "QuestionDismissed": "tooldeck.errors",
    "QuestionGate": "tooldeck.host.location.questions",
    "QuestionRequest": "tooldeck.host.location.questions",
    "QuestionService": "tooldeck.host.location.questions",
    "Registration": "tooldeck.host.handles",
    "Reject": "tooldeck.host.permissions.request",
    "Reply": "tooldeck.host.permissions.request",
    "ReplyError": "tooldeck.errors",
    "Resource": "tooldeck._resource",
    "ResourceEntry": "tooldeck.host.registry.features",
    "ResourceTemplate": "tooldeck._resource",
    "RuleLike": "tooldeck.host.permissions.wildcard",
    "Ruleset": "tooldeck.host.permissions.wildcard",
    "SchemaSource": "tooldeck._tool",
    "SessionError": "tooldeck.errors",
    "StoreUnavailable": "tooldeck.errors",
    "SessionScope": "tooldeck.host.handles",
    "SessionTransformFn": "tooldeck.host.registry.session",
    "Snapshot": "tooldeck.host.execution.snapshot",
    "SourceEffects": "tooldeck.host.registry.catalog",
    "SqliteStore": "tooldeck.host.store.sqlite",
    "StoreConfig": "tooldeck.host.config.config",
    "Status": "tooldeck.host.boundary.outcome",
    "Store": "tooldeck.host.store.base",
    "Telemetry": "tooldeck.telemetry.settings",
    "TelemetryConfig": "tooldeck.host.config.config",
    "TextPart": "tooldeck._tool",
    "Tool": "tooldeck._tool",
    "ToolCall": "tooldeck.host.call.values",
    "ToolCallContext": "tooldeck.host.boundary.hooks",
    "ToolCallOutcome": "tooldeck.host.boundary.outcome",
    "ToolConfig": "tooldeck.host.config.config",
    "ToolContext": "tooldeck._tool",
    "ToolDefectError": "tooldeck.errors",
    "ToolDefinition": "tooldeck.host.execution.definitions",
    "ToolEditor": "tooldeck.host.registry.editor",
    "ToolError": "tooldeck.host.boundary.outcome",
    "ToolFailure": "tooldeck._tool",
    "ToolResult": "tooldeck._tool",
    "ToolService": "tooldeck.host.service",
    "TooldeckError": "tooldeck.errors",
    "TransformFn": "tooldeck.host.registry.steps",
    "TrustItem": "tooldeck.host.trust.items",
    "TrustKind": "tooldeck.host.trust.items",
    "TrustSource": "tooldeck.host.trust.project",
    "TrustStatus": "tooldeck.host.trust.project",
    "TurnResult": "tooldeck.providers",
    "UpdateFn": "tooldeck.host.registry.editor",
    "UsageError": "tooldeck.errors",
    "Visibility": "tooldeck.host.execution.definitions",
    "grant_trust": "tooldeck.host.trust.store",
    "hookimpl": "tooldeck.hookspecs",
    "hookspec": "tooldeck.hookspecs",
    "load_config": "tooldeck.host.config.config_files",
    "revoke_trust": "tooldeck.host.trust.store",
    "run_tool_call": "tooldeck.host.boundary.boundary",
    "run_tool_calls": "tooldeck.providers",
    "tool": "tooldeck._function_tool",
    "trust_status": "tooldeck.host.trust.store",
    "trusted_folders": "tooldeck.host.trust.store",
}

__all__ = sorted([*_LOCATIONS, "__version__"])


def __getattr__(name: str) -> Any:
    module = _LOCATIONS.get(name)
    if module is None:
        raise AttributeError(f"module 'tooldeck' has no attribute {name!r}")
    import importlib  # here: ``import tooldeck`` alone does not need it

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
