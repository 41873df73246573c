"""A ruleset's data files: read once, checked against a declared schema, frozen, guesses listed.

Every game keeps the values its rules read in ``data/*.json`` beside its rules, with a
``data/README.md`` that tells the owner of the physical game how to correct them (the pattern
of ``falklands/data/README.md``). A value the rules text does not give is *provisional*: its
entry names it in ``provisional`` and says where the rest comes from in ``source``.

    ds = Dataset(Path(__file__).parent / "data")
    units = ds.entries("units.json", "units", {"name": str, "source": str, "provisional": list})
    chart = ds.table("fire.json", {"hit": int})   # a whole chart, provisional as a whole or by row
    ds.provisional()                              # [Guess(file, entry, field, why), ...]

A file that breaks its format raises ``DataError`` (a ValueError) at import, naming the file and
the entry, so a bad correction never reaches a game.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

WHOLE = None  # Guess.field of a guess that covers a whole entry or a whole table
TABLE_ENTRY = "(table)"  # Guess.entry of a guess that covers a whole table file


class DataError(ValueError):
    """A data file breaks its format; the message names the file and the entry."""

    def __init__(self, file: str, entry: str, message: str):
        super().__init__(f"{file}: {entry}: {message}")
        self.file, self.entry = file, entry


@dataclass(frozen=True)
class Guess:
    """One provisional value: which file and entry, which field (None: the whole entry), and why."""

    file: str
    entry: str
    field: str | None
    why: str

    @property
    def path(self) -> str:
        """``entry.field`` ("units.hermes.factors"), or the entry alone for a whole one."""
        return self.entry if self.field is None else f"{self.entry}.{self.field}"


# ---- frozen tables ---------------------------------------------------------------------------

class FrozenDict(dict):
    """A dict that refuses changes, so shared tables cannot be altered by accident.

    Still a dict for ``json.dumps`` and ``==``; ``copy.copy``/``copy.deepcopy`` give plain,
    changeable dicts and lists, ready to go into a game state."""

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("ruleset data tables are read-only; copy.deepcopy() one to change it")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse
    __ior__ = _refuse

    def __copy__(self) -> dict:
        return dict(self)

    def __deepcopy__(self, memo: dict) -> dict:
        return thaw(self)

    def __reduce__(self):  # pickles as a plain dict
        return (dict, (dict(self),))


class FrozenList(list):
    """A list that refuses changes (see FrozenDict); equal to the plain list it holds."""

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("ruleset data tables are read-only; copy.deepcopy() one to change it")

    __setitem__ = __delitem__ = append = extend = insert = pop = remove = clear = sort = reverse = _refuse
    __iadd__ = __imul__ = _refuse

    def __copy__(self) -> list:
        return list(self)

    def __deepcopy__(self, memo: dict) -> list:
        return thaw(self)

    def __reduce__(self):
        return (list, (list(self),))


def freeze(value: Any) -> Any:
    """Read-only copies of JSON dicts and lists, all the way down."""
    if isinstance(value, dict):
        return FrozenDict((k, freeze(v)) for k, v in value.items())
    if isinstance(value, list):
        return FrozenList(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """Plain, changeable JSON types (dicts and lists) from frozen ones."""
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list):
        return [thaw(v) for v in value]
    return value


# ---- reading and checking ----------------------------------------------------------------------

def _no_duplicate_keys(file: str):
    def hook(pairs: list[tuple[str, Any]]) -> dict:
        seen: dict[str, Any] = {}
        for key, value in pairs:
            if key in seen:
                raise DataError(file, key, "duplicate id (the key appears twice in one object)")
            seen[key] = value
        return seen
    return hook


def read_json(directory: Path | str, name: str) -> dict:
    """One data file as a JSON object; a duplicate key, bad JSON or another top level is refused."""
    path = Path(directory) / name
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataError(name, "(file)", f"cannot be read: {exc}") from exc
    try:
        doc = json.loads(text, object_pairs_hook=_no_duplicate_keys(name))
    except json.JSONDecodeError as exc:
        raise DataError(name, f"line {exc.lineno} column {exc.colno}", f"not valid JSON: {exc.msg}") from exc
    if not isinstance(doc, dict):
        raise DataError(name, "(file)", "must hold one JSON object")
    return doc


def check_fields(file: str, entry: str, obj: Any, schema: dict[str, Any], optional: tuple = ()) -> None:
    """``obj`` has exactly the fields of ``schema`` (field -> type or tuple of types); those in
    ``optional`` may be absent. An int field refuses true/false, and a bool field refuses 0/1."""
    if not isinstance(obj, dict):
        raise DataError(file, entry, "must be an object")
    missing = [k for k in schema if k not in obj and k not in optional]
    if missing:
        raise DataError(file, entry, f"missing field(s) {', '.join(missing)}")
    unknown = [k for k in obj if k not in schema]
    if unknown:
        raise DataError(file, entry, f"unknown field(s) {', '.join(unknown)}")
    for key, kind in schema.items():
        if key not in obj:
            continue
        value = obj[key]
        # bool is an int in Python: an int field must not take true/false
        if kind is int and isinstance(value, bool) or not isinstance(value, kind):
            raise DataError(file, entry, f"field '{key}' has the wrong type ({type(value).__name__})")


def check_choice(file: str, entry: str, field: str, value: Any, allowed: tuple) -> None:
    if value not in allowed:
        choices = ", ".join(map(str, allowed))
        raise DataError(file, entry, f"'{field}' is {value!r}; expected one of {choices}")


def entry_guesses(file: str, entry: str, obj: dict, extra: tuple = ()) -> list[Guess]:
    """The guesses an entry declares: ``provisional`` is ``true`` (the whole entry) or a list of
    its own field names (or of ``extra`` sub-fields such as "factors.ground"); ``source`` says
    which rules the rest rests on. A name that is no field, or named twice, is refused."""
    names, source = obj.get("provisional", []), obj.get("source", "")
    if "source" in obj and not (isinstance(source, str) and source.strip()):
        raise DataError(file, entry, "'source' must quote the rule(s) the entry rests on")
    if names is True:
        return [Guess(file, entry, WHOLE, source)]
    if not isinstance(names, list):
        raise DataError(file, entry, "'provisional' is true or a list of field names")
    for name in names:
        known = isinstance(name, str) and (name in obj or name in extra)
        if not known or name in ("source", "provisional"):
            raise DataError(file, entry, f"'provisional' names {name!r}, which is not a field of the entry")
    if len(set(names)) != len(names):
        raise DataError(file, entry, "'provisional' names a field twice")
    return [Guess(file, entry, name, source) for name in names]


TABLE_KEYS = {"title": str, "source": str, "provisional": (bool, str), "rows": dict}
ROW_KEYS = {"source": str, "provisional": (bool, list)}


class Dataset:
    """A ruleset's data directory: each file read once, checked, its guesses collected."""

    def __init__(self, directory: Path | str):
        self.directory = Path(directory)
        self._guesses: list[Guess] = []

    def read(self, name: str) -> dict:
        return read_json(self.directory, name)

    def guess(self, file: str, entry: str, field: str | None, why: str) -> None:
        """Record a guess the ruleset finds itself (a border, a file-level key...)."""
        self._guesses.append(Guess(file, entry, field, why))

    def check_entry(self, file: str, entry: str, obj: Any, schema: dict, *, optional: tuple = (),
                    extra: tuple = (), why: str = "") -> None:
        """Check one entry against ``schema`` and record the guesses it declares (their why: the
        entry's ``source``, else ``why``)."""
        check_fields(file, entry, obj, schema, optional)
        self._guesses += [Guess(g.file, g.entry, g.field, g.why or why)
                          for g in entry_guesses(file, entry, obj, extra)]

    def entries(self, file: str, doc: dict, section: str, schema: dict, *, extra: tuple = ()) -> dict:
        """Check every entry of ``doc[section]`` (an object keyed by id) against ``schema``."""
        items = doc.get(section)
        if not isinstance(items, dict) or not items:
            raise DataError(file, section, f"must be an object of {section}")
        for eid, obj in items.items():
            self.check_entry(file, f"{section}.{eid}", obj, schema, extra=extra)
        return items

    def table(self, file: str, schema: dict) -> FrozenDict:
        """A chart or table file: ``title``, ``source``, ``rows`` keyed by id, each row checked
        against ``schema``. The whole table is provisional with ``"provisional": "why"`` at the
        top; a row with ``"provisional": true`` or a list of its fields, row by row."""
        doc = self.read(file)
        check_fields(file, "(file)", doc, TABLE_KEYS, optional=("provisional",))
        whole = doc.get("provisional", False)
        if whole is True or (isinstance(whole, str) and not whole.strip()):
            raise DataError(file, "provisional", "a provisional table says why (text), or is false")
        if whole:
            self.guess(file, TABLE_ENTRY, WHOLE, f"{whole} ({doc['source']})")
        if not doc["rows"]:
            raise DataError(file, "rows", "a table needs at least one row")
        for rid, row in doc["rows"].items():
            self.check_entry(file, f"rows.{rid}", row, {**schema, **ROW_KEYS}, optional=tuple(ROW_KEYS),
                             why=doc["source"])
        return freeze(doc["rows"])

    def provisional(self) -> list[Guess]:
        """Every guessed value recorded so far, in the order the files were read."""
        return list(self._guesses)
