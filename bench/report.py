"""What a benchmark returns, and the Markdown page made of the results (docs/benchmarks.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Figure:
    """One measured figure: ``value`` against ``baseline`` (both in their own units).

    ``ratio`` is how the goal is stated (value / baseline for a rate, baseline / value for a
    time); ``met`` compares it (and any absolute limit) with the goal, None when there is none."""

    name: str
    value: float
    unit: str
    baseline: float | None = None
    baseline_unit: str = ""
    baseline_name: str = ""
    ratio: float | None = None
    goal: str = ""
    met: bool | None = None


@dataclass
class Result:
    """One benchmark's section: its figures, a free table (e.g. latencies) and notes."""

    name: str
    title: str
    figures: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    tables: list[tuple[list[str], list[list[Any]]]] = field(default_factory=list)
    method: str = ""  # how it is measured (the benchmark module's docstring, past its title)

    def note(self, text: str) -> None:
        print(f"  note: {text}", flush=True)
        self.notes.append(text)


def fmt(value: float | None, digits: int = 3) -> str:
    """A number with ``digits`` significant digits, thousands separated; '-' for None."""
    if value is None:
        return "-"
    if value == 0:
        return "0"
    magnitude = abs(value)
    if magnitude >= 10 ** digits:
        return f"{value:,.0f}"
    decimals = max(0, digits - 1 - int(f"{magnitude:e}".split("e")[1]))
    return f"{value:,.{decimals}f}"


def figure_row(f: Figure) -> list[str]:
    met = {True: "yes", False: "**no**", None: "-"}[f.met]
    base = f"{fmt(f.baseline)} {f.baseline_unit}".strip() if f.baseline is not None else "-"
    if f.baseline_name and f.baseline is not None:
        base = f"{base} ({f.baseline_name})"
    ratio = f"{fmt(f.ratio)}" if f.ratio is not None else "-"
    return [f.name, f"{fmt(f.value)} {f.unit}".strip(), base, ratio, f.goal or "-", met]


def table(header: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


# What was tried and left out, kept by hand and copied onto every page (bench/attempts.md).
ATTEMPTS = Path(__file__).with_name("attempts.md")


def render(results: list[Result], machine: dict, intro: list[str]) -> str:
    lines = ["# Benchmarks", "", *intro, "", "## The machine", ""]
    lines += table(["", ""], [[k, v] for k, v in machine.items()])
    lines += ["", "## Summary", ""]
    rows = [figure_row(f) for r in results for f in r.figures]
    lines += table(["figure", "measured", "baseline (same run)", "ratio", "goal", "met"], rows)
    for r in results:
        lines += ["", f"## {r.title}", ""]
        if r.method:
            lines += [r.method.strip(), ""]
        for n, (header, trows) in enumerate(r.tables):  # its figures are in the summary
            lines += ([""] if n else []) + table(header, trows)
        if r.notes:
            lines += [""] if lines[-1] else []
            lines += [f"- {n}" for n in r.notes]
    lines += ["", ATTEMPTS.read_text(encoding="utf-8").rstrip("\n")]
    return "\n".join(lines) + "\n"


def print_result(r: Result) -> None:
    print(f"\n== {r.title}")
    for f in r.figures:
        name, value, base, ratio, goal, met = figure_row(f)
        print(f"  {name}: {value}; baseline {base}; ratio {ratio}; goal {goal}; met {met}")
    for header, trows in r.tables:
        print("  " + " | ".join(header))
        for row in trows:
            print("  " + " | ".join(str(c) for c in row))
    for n in r.notes:
        print(f"  - {n}")
