"""The built-ins' models: made without postponed annotations, the same models."""

from __future__ import annotations

from importlib import import_module

import pytest

from tooldeck.builtin_plugins import BUILTIN_PLUGINS

from ..postponed import described, models_of, postponed_models


@pytest.mark.parametrize("name", BUILTIN_PLUGINS)
def test_the_models_are_the_ones_postponed_annotations_make(name):
    module = import_module(f"tooldeck.builtin_plugins.{name}")
    models = models_of(module)
    postponed = postponed_models(module)
    assert models
    assert sorted(models) == sorted(postponed)
    for model_name, model in models.items():
        assert described(model) == described(postponed[model_name]), model_name
