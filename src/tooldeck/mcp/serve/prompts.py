"""``prompts/*`` and ``completion/complete`` of ``tooldeck mcp serve``.

Prompts are listed and rendered from the client's view (its session's registrations
included). Arguments that do not fit and unknown prompts are protocol errors
(``-32602``) naming what is wrong; a render's own ``ToolFailure`` is ``-32603`` with
its message. Completions answer for prompt arguments and resource template variables
from what the pack declared (``complete``).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from tooldeck._tool import ToolFailure
from tooldeck.host.features import completion, prompts
from tooldeck.mcp.sdk import INTERNAL_ERROR, INVALID_PARAMS, MCPError, types
from tooldeck.mcp.serve.content import prompt_message
from tooldeck.mcp.serve.paging import page
from tooldeck.mcp.serve.peer import current_peer
from tooldeck.mcp.serve.sessions import client_key, principal_of

if TYPE_CHECKING:
    from tooldeck.mcp.serve.server import CatalogServer


class PromptHandlers:
    """The prompt and completion requests of ``server``'s clients."""

    def __init__(self, server: CatalogServer) -> None:
        self._server = server
        self._gets = itertools.count(1)

    async def list(self, ctx: Any, params: Any) -> types.ListPromptsResult:
        snapshot = self._view(ctx).snapshot
        entries = list(snapshot.catalog.prompts.values())
        cursor = getattr(params, "cursor", None) if params is not None else None
        chosen, after = page(entries, lambda e: e.name, cursor, self._server.page_size)
        return types.ListPromptsResult(
            prompts=[_listed(e.name, e.prompt) for e in chosen], next_cursor=after
        )

    async def get(
        self, ctx: Any, params: types.GetPromptRequestParams
    ) -> types.GetPromptResult | types.InputRequiredResult:
        server = self._server
        view = self._view(ctx)
        key, principal = client_key(ctx.request), principal_of(ctx.request)
        session_id = key if key is not None else server.sessions.stateless_key()
        get_id = f"mcp-prompt-{next(self._gets)}"
        round_ = server.round_of(ctx, params)
        if isinstance(round_, str):  # the client's state is not this request's
            raise MCPError(INVALID_PARAMS, f"Prompt {params.name} failed: {round_}")
        peer = server.peer(ctx, key, f"prompt {params.name}", round_)
        scope = view.snapshot.scope(session_id, get_id, via="served", peer=peer)
        with current_peer(peer):
            try:
                rendered = await prompts.render(
                    view.snapshot, params.name, params.arguments, scope, get_id
                )
            except prompts.PromptNotFound:
                raise MCPError(INVALID_PARAMS, f"Unknown prompt: {params.name}") from None
            except prompts.PromptArgumentsError as exc:
                raise MCPError(INVALID_PARAMS, str(exc)) from None
            except ToolFailure as exc:
                if round_ is not None and round_.needed is not None:  # asked in a round
                    return server.rounds.input_required(round_, params, principal)
                raise MCPError(INTERNAL_ERROR, f"Prompt {params.name} failed: {exc}") from None
            finally:
                await peer.outbox.flush()
        if round_ is not None and round_.needed is not None:
            return server.rounds.input_required(round_, params, principal)
        return types.GetPromptResult(
            description=rendered.description,
            messages=[prompt_message(params.name, m) for m in rendered.messages],
        )

    async def complete(self, ctx: Any, params: types.CompleteRequestParams) -> types.CompleteResult:
        snapshot = self._view(ctx).snapshot
        ref, argument = params.ref, params.argument
        if isinstance(ref, types.PromptReference):
            found = await completion.complete_prompt(
                snapshot, ref.name, argument.name, argument.value
            )
        else:
            found = await completion.complete_template(
                snapshot, ref.uri, argument.name, argument.value
            )
        return types.CompleteResult(
            completion=types.Completion(
                values=list(found.values), total=found.total, has_more=found.has_more
            )
        )

    def _view(self, ctx: Any) -> Any:
        request = ctx.request
        key = client_key(request)
        if key is not None:
            self._server.sessions.touch(key)
        return self._server.sessions.view(key, principal_of(request))


def _listed(name: str, prompt: Any) -> types.Prompt:
    return types.Prompt(
        name=name,
        description=prompt.description,
        arguments=[
            types.PromptArgument(name=a.name, description=a.description, required=a.required)
            for a in prompt.arguments
        ],
    )
