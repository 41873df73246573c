"""``api.schemas.dump`` gives exactly what marshmallow's ``Schema.dump`` gives, for every schema
of the API and any object: the same keys in the same order, the same values of the same types,
the same error when marshmallow raises one."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st
from marshmallow import Schema, fields

from api import notify_settings, reads, schemas

# The strategies of the nested schemas are large; hypothesis says so when it prints one.
pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")

SCHEMAS = sorted({cls for module in (schemas, reads, notify_settings) for cls in vars(module).values()
                  if inspect.isclass(cls) and issubclass(cls, Schema) and cls.__module__ == module.__name__},
                 key=lambda cls: f"{cls.__module__}.{cls.__name__}")

scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False, width=32),
                    st.text(max_size=4), st.binary(max_size=2))
anything = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3), st.tuples(inner),
                                                        st.dictionaries(st.text(max_size=3), inner, max_size=3)),
                        max_leaves=6)


def for_field(field: fields.Field, depth: int = 0) -> st.SearchStrategy:
    """Mostly values of the type the field gives, sometimes anything at all."""
    kind = type(field)
    if kind in (fields.String, fields.Email):
        right = st.text(max_size=6)
    elif kind is fields.Integer:
        right = st.integers()
    elif kind is fields.Boolean:
        right = st.booleans()
    elif kind is fields.List and depth < 3:
        right = st.lists(for_field(field.inner, depth + 1), max_size=3)
    elif kind is fields.Dict and depth < 3:
        values = for_field(field.value_field, depth + 1) if field.value_field is not None else anything
        right = st.dictionaries(st.one_of(st.text(max_size=4), st.integers(0, 3)), values, max_size=3)
    elif kind is fields.Nested and depth < 3:
        one = for_schema(field.schema, depth + 1)
        right = st.lists(one, max_size=3) if field.many or field.schema.many else one
    else:
        right = anything
    return st.one_of(right, right, right, st.none(), anything)


def for_schema(schema: Schema, depth: int = 0) -> st.SearchStrategy:
    optional = {name: for_field(field, depth) for name, field in schema.dump_fields.items()}
    return st.one_of(st.fixed_dictionaries({}, optional=optional), st.fixed_dictionaries(optional),
                     st.fixed_dictionaries(optional) if depth else st.none())


def typed(value: Any) -> Any:
    """A value with its types and its dicts' order made part of what ``==`` compares."""
    if isinstance(value, dict):
        return ("dict", [(typed(k), typed(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [typed(v) for v in value])
    return (type(value).__name__, value)


def outcome(call) -> Any:
    try:
        return typed(call())
    except Exception as exc:  # marshmallow's own errors for values it cannot convert
        return ("raised", type(exc).__name__)


@pytest.mark.parametrize("cls", SCHEMAS, ids=lambda cls: cls.__name__)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_dump_is_marshmallows_dump(cls: type[Schema], data) -> None:
    obj = data.draw(for_schema(schemas.shared(cls)))
    assert outcome(lambda: schemas.dump(cls, obj)) == outcome(lambda: schemas.shared(cls).dump(obj))


@pytest.mark.parametrize("cls", SCHEMAS, ids=lambda cls: cls.__name__)
def test_every_schema_of_the_api_has_the_fast_path(cls: type[Schema]) -> None:
    """Else ``dump`` is marshmallow's for it, which is right but slow: a new field type needs a
    path in ``schemas._field`` (and a strategy above)."""
    assert schemas._dumper(schemas.shared(cls)) is not None


def test_an_order_result_takes_the_fast_path_and_matches() -> None:
    line = {"game_id": "g", "seq": 3, "type": "DiceRolled", "timestamp": "2026-11-25T00:00:00+00:00",
            "data": {"dice": "2d6", "faces": [3, 4], "modifiers": [{"value": -1, "reason": "terrain"}]},
            "prev_hash": "a" * 64, "hash": "b" * 64, "text": "Blue rolls 2d6: 7"}
    result = {"game_id": "g", "events": [line, {**line, "seq": 4, "redacted": True}], "version": 4,
              "chain_head": "b" * 64, "replayed": False, "order_id": None}
    fast = schemas._dumper(schemas.shared(schemas.CommandResult))
    assert typed(fast(result)) == typed(schemas.shared(schemas.CommandResult).dump(result))


def test_a_value_marshmallow_converts_is_converted() -> None:
    """True in an Integer field is 1 to marshmallow, and 7 in a String field "7"; the fast path
    gives way, and so they are here."""
    got = schemas.dump(schemas.CommandResult, {"version": True, "events": [{"seq": 2}], "game_id": 7})
    assert typed(got) == typed({"game_id": "7", "events": [{"seq": 2}], "version": 1})


class Listing(Schema):
    items = fields.List(fields.String())
    count = fields.Integer()


def test_a_missing_key_named_like_a_dict_method_is_read_as_marshmallow_reads_it() -> None:
    """marshmallow reads a key a dict lacks as the dict's attribute: ``items`` is its method."""
    assert schemas._dumper(schemas.shared(Listing)) is not None
    for obj in ({"count": 1}, {"items": ["a"], "count": 2}):
        assert outcome(lambda: schemas.dump(Listing, obj)) == outcome(lambda: schemas.shared(Listing).dump(obj))
