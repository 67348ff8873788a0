"""How ``question`` runs (the tool is declared in ``builtin_plugins/question.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tooldeck._tool import ToolContext, ToolResult
from tooldeck.builtin_plugins._run.files import feedback_as_failure
from tooldeck.builtin_plugins.question import Answer, QuestionInput, QuestionItem, QuestionOutput
from tooldeck.host.location.questions import Option, Question

if TYPE_CHECKING:
    from tooldeck.builtin_plugins._deferred import RunFn
    from tooldeck.host.location.location import Location


def executor(location: Location) -> RunFn:
    """``question`` bound to the Location's permission and question services."""
    permission, questions = location.permission, location.question

    async def question(params: QuestionInput, ctx: ToolContext) -> ToolResult:
        asked = [_question(item) for item in params.questions]
        gate = permission.gate(ctx.source, session_id=ctx.session_id)
        with feedback_as_failure("asking these questions"):
            await gate.assert_("question", (), metadata={"headers": [q.header for q in asked]})
        chosen = await questions.gate(ctx.source, session_id=ctx.session_id).ask(asked)
        answers = [
            Answer(question=q.question, header=q.header, answers=labels)
            for q, labels in zip(asked, chosen, strict=True)
        ]
        output = QuestionOutput(answers=answers)
        return ToolResult(content=_render(answers), output=output)

    return question


def _question(item: QuestionItem) -> Question:
    options = tuple(Option(option.label, option.description) for option in item.options)
    return Question(item.question, item.header, options, item.multiple)


def _render(answers: list[Answer]) -> str:
    lines = [
        f'"{answer.question}" → {", ".join(answer.answers) or "(no answer)"}' for answer in answers
    ]
    return "The user answered:\n" + "\n".join(lines)
