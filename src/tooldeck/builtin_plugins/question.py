"""The ``question`` built-in: ask the user multiple-choice questions, wait for the answers.

Order of a call: assert ``question`` (allowed by default; a host may make it ask or deny
it, e.g. for unattended runs) → ask every question at once through the Location's
question service. A dismissal raises ``QuestionDismissed``, a decline signal this leaf
never catches: the call ends ``declined`` and the model is told not to ask again.

Answers come back as text the model reads (``"Which DB?" → Postgres``) and as the
declared output, one entry per question in the order asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from tooldeck._tool import Tool
from tooldeck.builtin_plugins._deferred import deferred
from tooldeck.builtin_plugins._model import Model
from tooldeck.hookspecs import hookimpl

if TYPE_CHECKING:
    from tooldeck.host.location.location import Location
    from tooldeck.host.registry.editor import ToolEditor

DESCRIPTION = """\
Ask the user one or more questions and wait for the answers.

Use it when you need a decision or a preference you cannot work out yourself: which \
approach to take, which of several candidates is meant, whether to go ahead. Ask \
related questions together in one call. Each question has a short `header` (a few \
words), the full `question`, and `options`: a short `label` each, with a \
`description` of what choosing it means. Set `multiple` to let the user pick several. \
The user may also answer in their own words; leave `options` empty to ask for a free \
answer. Answers come back as `"question" → answer` lines. If the user dismisses the \
questions, do not ask them again."""


class QuestionOption(Model):
    label: str = Field(min_length=1, description="The choice as the user sees it: 1-5 words.")
    description: str = Field(default="", description="What choosing this option means.")


class QuestionItem(Model):
    question: str = Field(min_length=1, description="The complete question.")
    header: str = Field(min_length=1, description="A very short label for it (a few words).")
    options: list[QuestionOption] = Field(
        default_factory=list, description="The choices; empty for a free answer."
    )
    multiple: bool = Field(default=False, description="Whether several options may be chosen.")


class QuestionInput(Model):
    questions: list[QuestionItem] = Field(min_length=1, description="The questions, in order.")


class Answer(Model):
    question: str = Field(description="The question asked.")
    header: str = Field(description="Its header.")
    answers: list[str] = Field(description="The labels or words the user chose; may be empty.")


class QuestionOutput(Model):
    answers: list[Answer] = Field(description="One entry per question, in the order asked.")


@hookimpl
def tool_transform(editor: ToolEditor, location: Location) -> None:
    """Add ``question``; its code (``_run/question.py``) loads on the first call."""
    editor.add(
        Tool(
            name="question",
            description=DESCRIPTION,
            input=QuestionInput,
            output=QuestionOutput,
            execute=deferred("question", location),
            codemode=False,
            permission="question",
        )
    )
