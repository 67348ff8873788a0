"""The ``semantic`` extra: a static embedding read from the wordllama wheel's files, its
ranking fused with the word ranking."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tooldeck.host.registry.editor import NamespaceEntry
from tooldeck.host.search.query import parse
from tooldeck.host.search.ranked import Ranked
from tooldeck.host.search.ranking import ToolIndex, _fused
from tooldeck.host.search.semantic import (
    NEIGHBOUR_FLOOR,
    Neighbours,
    Vectors,
    installed,
    tool_text,
)
from tooldeck.host.search.synonyms import SYNONYM_WEIGHT

from .test_ranking import make, ranked, services

pytestmark = pytest.mark.skipif(
    sys.version_info >= (3, 14), reason="the extra's wordllama has no wheel for 3.14 yet"
)


def weather_and_travel() -> tuple[list, dict[str, str]]:
    entries, spaces = services()
    entries += [
        make("get_city_guide", "Sights to see in a city.", namespace="travel"),
        make("get_city_forecast", "The weather expected in a city.", namespace="weather"),
    ]
    entries.sort(key=lambda e: e.name)
    return entries, {**spaces, "travel": "Trips: flights, hotels and guides."}


def test_the_extra_is_read_from_the_wheel_without_importing_its_loader():
    # The test extra installs it; its loader (which may reach for a model hub) never runs.
    code = (
        "import sys\n"
        "from tooldeck.host.search.semantic import installed\n"
        "model = installed()\n"
        "assert model is not None and model.table.shape == (32000, 256)\n"
        "assert 'wordllama' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_related_texts_are_closer_than_unrelated_ones():
    model = installed()
    assert model is not None
    rain = model.embed("will it rain tomorrow")
    assert rain @ model.embed("weather forecast") > rain @ model.embed("delete a git branch")


def test_tools_join_by_meaning_when_as_close_as_one_the_words_found():
    model = installed()
    assert model is not None
    texts = ["get forecast. The weather expected.", "get city guide. Sights to see."]
    vectors = Vectors(model, texts, ["weather", "travel"], {})
    assert vectors.closest("will it be sunny", 5) == [0, 1]
    # Anchored at the forecast (the words found it), the guide is not as close.
    assert vectors.closest("will it be sunny", 5, anchors=[0]) == [0]
    assert vectors.closest("will it be sunny", 5, anchors=[1]) == [0, 1]


def test_fusion_keeps_the_words_first_and_adds_what_meaning_finds():
    assert _fused([3, 1], [7, 3], 5) == [3, 1, 7]
    assert _fused([3, 1], [7, 3], 1) == [3]
    assert _fused([], [7], 5) == [7]


def test_meaning_reorders_what_the_words_found():
    entries, spaces = services()
    query = "a programming mistake to fix"
    assert ranked(entries, query, spaces)[0] != "github_update_issue"
    assert ranked(entries, query, spaces, semantic=True)[0] == "github_update_issue"


def test_a_query_no_tool_shares_a_word_with_still_finds_nothing():
    entries, spaces = weather_and_travel()
    index = ToolIndex.of(entries, {k: NamespaceEntry(v, "t") for k, v in spaces.items()})
    assert index.semantic
    found = index.rank("umbrella", 5)
    assert found.positions == [] and found.weak


def test_words_only_when_asked():
    entries, spaces = weather_and_travel()
    described = {k: NamespaceEntry(v, "t") for k, v in spaces.items()}
    fused = ToolIndex.of(entries, described)
    worded = ToolIndex.of(entries, described, semantic=False)
    assert not worded.semantic
    assert fused.rank("sunny city", 20, semantic=False).positions == worded.search("sunny city", 20)


def test_a_best_tool_found_by_meaning_alone_is_weak():
    entries, _ = weather_and_travel()
    read = ToolIndex.of(entries, {}).rank("sunny city", 1).query
    assert Ranked([0], read, frozenset({0}), frozenset({0}), 1.0, worded=False).weak


def test_a_tool_is_its_name_in_words_and_its_first_sentence():
    said = tool_text("create_pull_request", "Open a pull request. Times are in UTC.")
    assert said == "create pull request. Open a pull request."


def test_closest_returns_nothing_for_nothing():
    model = installed()
    assert model is not None
    vectors = Vectors(model, ["get forecast. The weather."], ["weather"], {})
    assert vectors.closest("", 5) == [] and vectors.closest("rain", 0) == []
    assert vectors.closest("rain", 5) == [0]
    assert Vectors(model, [], [], {}).closest("rain", 5) == []


# -- a word no tool uses, searched as the catalog's words closest to it -----------------------
def catalog_words() -> Neighbours:
    model = installed()
    assert model is not None
    spelled = {"elev": "elevation", "invoic": "invoice", "fire": "fire", "forecast": "forecast"}
    return Neighbours(model, spelled)


def test_a_word_has_the_catalog_words_closest_to_it():
    ((term, near),) = catalog_words().of("altitude")
    assert term == "elev" and near >= NEIGHBOUR_FLOOR
    assert catalog_words().of("wildfire")[0][0] == "fire"


def test_a_word_nothing_in_the_catalog_is_close_to_has_no_neighbours():
    assert catalog_words().of("banana") == ()


def test_neighbours_stand_in_for_a_word_the_index_does_not_know():
    lend = catalog_words().of
    (altitude,) = parse("altitude", {"elev"}, lend).concepts[:1]
    weights = dict(altitude.alternatives)
    assert 0 < weights["elev"] <= SYNONYM_WEIGHT
    # A word the index knows is searched as it is.
    (known,) = parse("altitude", {"altitud"}, lend).concepts[:1]
    assert dict(known.alternatives) == {"altitud": 1.0}


def test_a_tool_named_for_a_neighbour_is_found():
    entries = [
        make("get_elevation", "The height of a point above sea level.", namespace="maps"),
        make("get_forecast", "The weather expected at a point.", namespace="maps"),
        make("get_route", "Directions between two points.", namespace="maps"),
    ]
    index = ToolIndex.of(entries, {})
    found = index.rank("altitude of my house", 5)
    assert [entries[i].name for i in found.positions] == ["maps_get_elevation"]
    assert not found.weak
    # Words only: the word is nobody's, nothing is found.
    assert index.rank("altitude of my house", 5, semantic=False).positions == []


def test_a_word_searched_by_its_neighbours_never_makes_a_result_weak():
    entries = [
        make("get_forecast", "The weather expected in a city.", namespace="weather"),
        make("get_elevation", "The height of a point above sea level.", namespace="maps"),
    ]
    index = ToolIndex.of(entries, {})
    # "altitude" lends elevation; the forecast, best for "weather", does not answer it.
    found = index.rank("forecast for a town at altitude", 5)
    assert entries[found.positions[0]].name == "weather_get_forecast"
    assert "altitude" not in found.unmatched and not found.weak
    # The tool the neighbours found answers it.
    assert index.rank("altitude", 5).matched == {0}
