"""What the model reads: the ``execute`` description and the stubs inside it."""

from __future__ import annotations

import ast
from typing import Literal

import pydantic

from tooldeck import Tool, ToolResult, tool

from .conftest import text_tool


class Item(pydantic.BaseModel):
    """One line of an order."""

    sku: str = pydantic.Field(description="Stock keeping unit.")
    qty: int = 1


class Order(pydantic.BaseModel):
    id: int
    items: list[Item]
    note: str | None = None


@tool(namespace="shop")
def place(items: list[Item], priority: Literal["low", "high"] = "low") -> Order:
    """Place an order.

    Args:
        items: What to order.
    """
    return Order(id=1, items=items)


@tool(namespace="shop")
def last() -> Order:
    """The last order."""
    return Order(id=1, items=[])


def stub_text(snapshot) -> str:
    description = snapshot.get("execute").description
    return description.split("```python\n", 1)[1].split("```", 1)[0]


def test_schemas_become_typed_dicts_literals_and_not_required(deck):
    stubs = stub_text(deck.snapshot(place, last))
    assert (
        """    async def place(self, *, items: list[Item], """
        '''priority: Literal["low", "high"] = "low") -> Order:
        """Place an order.

        Args:
            items: What to order.
        """'''
    ) in stubs
    assert (
        '''class Item(TypedDict):
    """One line of an order."""
    sku: str  # Stock keeping unit.
    qty: NotRequired[int]'''
        in stubs
    )
    assert "class Order(TypedDict):\n    id: int\n    items: list[Item]\n" in stubs
    assert stubs.count("class Item(TypedDict)") == 1  # shared by both tools
    assert "tools.shop" in stubs and "shop: tools_shop" in stubs


def test_namespace_descriptions_head_their_stubs(deck):
    stubs = stub_text(deck.snapshot(place, namespaces={"shop": "Orders and stock."}))
    assert 'class tools_shop:\n    """tools.shop: Orders and stock."""' in stubs


def test_pinned_tools_come_first_then_effective_names(deck):
    snap = deck.snapshot(text_tool("b", str), text_tool("a", str), text_tool("z", str, pinned=True))
    stubs = stub_text(snap)
    assert stubs.index("def z(") < stubs.index("def a(") < stubs.index("def b(")


def test_tools_without_an_output_schema_return_their_text(deck):
    stubs = stub_text(deck.snapshot(text_tool("echo", str)))
    assert "async def echo(self, *, text: str) -> str:" in stubs


def test_the_budget_leaves_stubs_out_and_says_how_to_find_them(deck):
    many = [text_tool(f"tool{n:02}", str, description=f"Tool number {n}. " * 5) for n in range(30)]
    description = deck.snapshot(*many, budget_tokens=300).get("execute").description
    shown = description.count("async def tool")
    assert 0 < shown < 30
    assert "more tools are not listed" not in description  # no count: see test_budget.py
    assert 'await search("words")' in description
    assert len(stub_text(deck.snapshot(*many, budget_tokens=300))) <= 300 * 4 + 1200


async def test_left_out_tools_are_type_checked_and_callable(deck):
    many = [text_tool(f"tool{n:02}", lambda i, n=n: f"{n}:{i['text']}") for n in range(30)]
    snap = deck.snapshot(*many, budget_tokens=50)
    assert "async def tool29" not in snap.get("execute").description
    outcome = await deck.run(
        snap, "found = await search('tool29')\n[found[0]['call'], await tools.tool29(text='x')]"
    )
    assert outcome.output["result"] == ["tools.tool29", "29:x"]
    typo = await deck.run(snap, "await tools.tool29(txt='x')")
    assert typo.status == "failed" and "does not type-check" in typo.error.message


async def test_results_are_checked_against_output_typed_dicts(deck):
    snap = deck.snapshot(last)
    outcome = await deck.run(snap, "o = await tools.shop.last()\no['nope']")
    assert outcome.status == "failed" and 'Unknown key "nope"' in outcome.error.message


def test_execute_is_advertised_after_native_tools_only_with_code_mode_tools(deck):
    native = text_tool("native", str, codemode=False)
    assert deck.snapshot(native).names == ("native",)
    assert deck.snapshot(native, place).names == ("native", "execute")
    definitions = deck.snapshot(native, place).definitions_for("openai")
    assert [d["function"]["name"] for d in definitions] == ["native", "execute"]


def test_config_and_deny_rules_turn_code_mode_off(deck):
    assert deck.snapshot(place, enabled=False).names == ("shop_place",)
    denied = deck.snapshot(place, permission=[{"action": "execute", "effect": "deny"}])
    assert denied.names == ("shop_place",)


def test_unusual_schemas_fall_back_to_any_or_functional_typed_dicts(deck):
    schema = {
        "type": "object",
        "properties": {
            "odd": {"type": "object", "properties": {"my-key": {"type": "string"}}},
            "either": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "many": {"type": ["string", "integer"]},
            "anything": {},
            "pairs": {"type": "object", "additionalProperties": {"type": "number"}},
        },
    }
    stubs = stub_text(
        deck.snapshot(
            Tool(name="odd", description="Odd.", input=schema, execute=lambda i, c: ToolResult("x"))
        )
    )
    assert (
        "odd: OddOdd = ..., either: int | None = ..., many: str | int = ..., "
        "anything: Any = ..., pairs: dict[str, float] = ..."
    ) in stubs
    assert 'OddOdd = TypedDict("OddOdd", {"my-key": NotRequired[str]})' in stubs


def test_the_stubs_are_python_whatever_the_schemas_allow(deck):
    """A tool with no properties but open to any (an MCP SDK server's tool without
    arguments) takes ``**kwargs`` alone: a bare ``*`` before it is not Python."""
    schemas = {
        "where": {"type": "object", "properties": {}, "additionalProperties": True},
        "tagged": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "additionalProperties": {"type": "string"},
        },
        "nothing": {"type": "object", "properties": {}},
    }
    tools = [
        Tool(name=name, description=f"{name}.", input=schema, execute=lambda i, c: ToolResult(""))
        for name, schema in schemas.items()
    ]
    stubs = stub_text(deck.snapshot(*tools))
    ast.parse(stubs)  # raises SyntaxError on a stub that is not Python
    assert "async def where(self, **kwargs: Any) -> str:" in stubs
    assert "async def tagged(self, *, name: str = ..., **kwargs: str) -> str:" in stubs
    assert "async def nothing(self) -> str:" in stubs


async def test_the_guides_parallel_recipe_type_checks_and_runs_as_written(deck):
    snap = deck.snapshot(place)
    guide = snap.get("execute").description
    assert "`import asyncio` and `await asyncio.gather(...)`" in guide
    code = (
        "import asyncio\n"
        "orders = await asyncio.gather(tools.shop.place(items=[{'sku': 'a'}]),\n"
        "                              tools.shop.place(items=[{'sku': 'b'}]))\n"
        "[o['id'] for o in orders]"
    )
    outcome = await deck.run(snap, code)
    assert outcome.status == "completed", outcome.content
    assert outcome.output["result"] == [1, 1]


async def test_every_advertised_path_of_a_generated_catalog_is_callable(deck):
    names = ["9lives", "_private", "t_private", "-dash", "__call__", "class", "a-b", "plain"]
    tools = [text_tool(n, lambda i, n=n: n, description="An odd one.") for n in names]
    tools += [
        text_tool(n, lambda i, n=n: f"ns:{n}", namespace=ns, description="An odd one.")
        for ns, n in [("_hidden", "x"), ("7seas", "y"), ("acme.-git", "status")]
    ]
    snap = deck.snapshot(*tools)
    listed = await deck.run(snap, "[t['call'] for t in await search('odd', limit=50)]")
    paths = listed.output["result"]
    assert len(paths) == len(tools)
    stubs = snap.get("execute").description
    for path in paths:
        assert f"async def {path.rsplit('.', 1)[1]}(" in stubs
    program = "\n".join(f"r{n} = await {path}(text='x')" for n, path in enumerate(paths))
    results = await deck.run(
        snap, program + "\n[" + ", ".join(f"r{n}" for n in range(len(paths))) + "]"
    )
    assert sorted(results.output["result"]) == sorted([*names, "ns:x", "ns:y", "ns:status"])
