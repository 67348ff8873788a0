"""The base of the built-ins' input and output models.

Every built-in loads whenever a Host opens, but most processes use only a few of them:
``defer_build`` makes pydantic build a model's validator and schema on first use
instead of when the module is imported, which keeps ``Host.open`` cheap.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Model(BaseModel):
    """A pydantic model whose validator is built on first use."""

    model_config = ConfigDict(defer_build=True)
