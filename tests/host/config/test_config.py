"""The configuration models: made without postponed annotations, the same models."""

from __future__ import annotations

from tooldeck.host.config import config

from ...postponed import described, models_of, postponed_models


def test_the_models_are_the_ones_postponed_annotations_make():
    models = models_of(config)
    postponed = postponed_models(config)
    assert sorted(models) == sorted(postponed)
    assert len(models) == 15
    for name, model in models.items():
        assert described(model) == described(postponed[name]), name
