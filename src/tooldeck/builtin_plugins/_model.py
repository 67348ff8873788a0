"""The base of the built-ins' input and output models.

Every built-in loads whenever a Host opens, but most processes use only a few of them:
``defer_build`` makes pydantic build a model's validator and schema on first use
instead of when the module is imported, which keeps ``Host.open`` cheap. For the same
reason the modules that declare the built-ins do not postpone their annotations:
pydantic would compile and evaluate each field's annotation text, about a fifth of
making their models (``bench/DECISIONS.md``; ``tests/builtin_plugins/test_models.py``
pins them to their postponed form).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Model(BaseModel):
    """A pydantic model whose validator is built on first use."""

    model_config = ConfigDict(defer_build=True)
