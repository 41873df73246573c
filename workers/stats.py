"""Statistics of one game and across games: pure functions over export lines (docs/workers.md).

- ``chi2_sf(x, df)``: the chi-square survival function (the p-value), from the regularized upper
  incomplete gamma function Q(df/2, x/2) written with ``math.lgamma`` (series below a + 1,
  continued fraction above), so no scipy is needed.
- ``success_probability(count, sides, ordered, target)``: the exact chance that a roll met its
  target, from the dice distribution (a sum of ``count`` dice, or a d66 read as tens and units).
- ``game_statistics(lines)``: dice faces per seat and die size against uniform, the luck index
  per seat (hits achieved against hits expected), the luck on tables (each result of each table
  read, achieved against expected, from ``tables.distribution``) and the VP timeline of one game.
- ``CrossGame``: per ruleset, one game at a time (``add(lines)``), so 10,000 games never sit in
  memory together: win rates, lengths, final VP, order kinds, random events, dice fairness.
- ``bar_chart_svg`` / ``line_chart_svg``: hand-written SVG charts a person can look at.

Lines are read defensively (``.get``): a line redacted for a viewer may lack fields.
"""

from __future__ import annotations

import math
import operator
import statistics as pystats
from collections import Counter, defaultdict
from functools import lru_cache
from html import escape
from typing import Any, Iterable

from domain.rulesets.toolkit import tables
from projections import folds

COMPARE = {">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt, "==": operator.eq}
_EPS = 1e-15


# ============================================================================ chi-square ====
def gammaq(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a)."""
    if a <= 0:
        raise ValueError("a must be positive")
    if x <= 0:
        return 1.0
    if x < a + 1:  # the series for P(a, x) converges fast here
        term = total = 1.0 / a
        n = a
        for _ in range(10_000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * _EPS:
                break
        return max(0.0, 1.0 - total * math.exp(-x + a * math.log(x) - math.lgamma(a)))
    # Lentz's continued fraction for Q(a, x)
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < _EPS:
            break
    return min(1.0, math.exp(-x + a * math.log(x) - math.lgamma(a)) * h)


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with ``df`` degrees of freedom: the p-value of statistic x."""
    return gammaq(df / 2, x / 2)


def chi_square(counts: dict[Any, int] | list[int], categories: Iterable[Any] | None = None) -> dict:
    """Counts against a uniform expectation over ``categories`` (default: the keys given).
    Returns n, chi2, df and p (None when there are fewer than two categories or no counts)."""
    if isinstance(counts, dict):
        keys = list(categories) if categories is not None else list(counts)
        observed = [counts.get(k, 0) for k in keys]
    else:
        observed = list(counts)
    n, k = sum(observed), len(observed)
    if n == 0 or k < 2:
        return {"n": n, "chi2": None, "df": max(k - 1, 0), "p": None}
    expected = n / k
    chi2 = sum((o - expected) ** 2 / expected for o in observed)
    return {"n": n, "chi2": round(chi2, 6), "df": k - 1, "p": round(chi2_sf(chi2, k - 1), 6)}


# ======================================================================= roll probabilities ====
@lru_cache(maxsize=1024)
def distribution(count: int, sides: int, ordered: bool = False) -> tuple[tuple[int, float], ...]:
    """(read value, probability) of a roll: the sum of ``count`` dice of ``sides`` sides, or
    for a d66 (``ordered``) the two d6 read as tens and units (36 equally likely values)."""
    if ordered:
        return tuple((10 * a + b, 1 / 36) for a in range(1, 7) for b in range(1, 7))
    ways: dict[int, int] = {0: 1}
    for _ in range(count):
        nxt: dict[int, int] = defaultdict(int)
        for total, w in ways.items():
            for f in range(1, sides + 1):
                nxt[total + f] += w
        ways = nxt
    all_ways = sides ** count
    return tuple((v, w / all_ways) for v, w in sorted(ways.items()))


def success_probability(count: int, sides: int, ordered: bool, target: dict) -> float:
    """P(read value + modifiers ``compare`` value) — exact, from ``distribution``."""
    compare = COMPARE[target.get("compare", ">=")]
    shift = sum(m.get("value", 0) for m in target.get("modifiers") or [] if isinstance(m, dict))
    return sum(p for v, p in distribution(count, sides, ordered) if compare(v + shift, target["value"]))


def _roll_shape(d: dict) -> tuple[int, int, bool] | None:
    dice = d.get("dice")
    if not isinstance(dice, list) or not dice or not all(isinstance(x, dict) for x in dice):
        return None
    sides = {x.get("sides") for x in dice}
    if len(sides) != 1 or not isinstance(next(iter(sides)), int):
        return None
    ordered = d.get("notation") == "d66"
    return len(dice), next(iter(sides)), ordered


# ============================================================================ one game ====
def _faces_block(faces: Counter, sides: int) -> dict:
    return {"faces": {str(f): faces.get(f, 0) for f in range(1, sides + 1)},
            **chi_square(dict(faces), range(1, sides + 1))}


def game_statistics(lines: list[dict], rules: Any = None, viewer: str | None = "umpire") -> dict:
    """Dice fairness per seat and die size (chi-square against uniform), the luck index per
    seat, and the VP timeline of one game, from its export lines (already filtered for the
    audience, or filtered here with ``rules`` and ``viewer``).

    Fairness counts every die rolled, superseded ones included (they were real draws); luck
    counts only rolls that stand (not taken back) and were made against a target. A seat's luck
    is achieved − expected successes; ``z`` divides that by the binomial standard deviation."""
    if not lines:
        raise ValueError("a game has at least one line")
    game_id = lines[0].get("game_id", "")
    dice_view = folds.fold("dice", lines)
    rolls, _ = folds.render_dice(dice_view, rules, viewer, game_id)
    faces: dict[str, dict[int, Counter]] = defaultdict(lambda: defaultdict(Counter))
    luck: dict[str, dict] = {}
    tabled: dict[str, dict] = {}
    for roll in rolls:
        seat = roll.get("seat") or "?"
        for die in roll.get("dice") or []:
            if isinstance(die, dict) and isinstance(die.get("sides"), int) and isinstance(die.get("value"), int):
                faces[seat][die["sides"]][die["value"]] += 1
        target, shape = roll.get("target"), _roll_shape(roll)
        if not roll["superseded"] and isinstance(target, dict) and "table" in target:
            _count_tabled(tabled.setdefault(seat, {}), target, roll.get("outcome"))
            continue
        if roll["superseded"] or not isinstance(target, dict) or shape is None or "value" not in target:
            continue
        if roll.get("outcome") not in ("success", "failure"):
            continue
        p = success_probability(*shape, target)
        entry = luck.setdefault(seat, {"rolls": 0, "expected": 0.0, "achieved": 0, "variance": 0.0})
        entry["rolls"] += 1
        entry["expected"] += p
        entry["variance"] += p * (1 - p)
        entry["achieved"] += roll["outcome"] == "success"
    by_seat = {seat: {f"d{s}": _faces_block(c, s) for s, c in sorted(sizes.items())}
               for seat, sizes in sorted(faces.items())}
    overall: dict[int, Counter] = defaultdict(Counter)
    for sizes in faces.values():
        for s, c in sizes.items():
            overall[s].update(c)
    luck_out = {}
    for seat, e in sorted(luck.items()):
        diff = e["achieved"] - e["expected"]
        luck_out[seat] = {"rolls": e["rolls"], "achieved": e["achieved"], "expected": round(e["expected"], 6),
                          "luck": round(diff, 6),
                          "z": round(diff / math.sqrt(e["variance"]), 6) if e["variance"] > 0 else None}
    totals, track = folds.render_vp(folds.fold("vp", lines), rules, viewer, game_id)
    initial = folds.fold("vp", lines[:1])["initial"] or {}
    timeline = [{"seq": e["seq"], "turn": e["turn"], "phase": e["phase"], "side": e["side"], "total": e["total"]}
                for e in track if not e["superseded"]]
    created = lines[0].get("data") if isinstance(lines[0].get("data"), dict) else {}
    return {"game_id": game_id, "ruleset": created.get("ruleset"), "version": lines[-1]["seq"],
            "dice": {"by_seat": by_seat, "all": {f"d{s}": _faces_block(c, s) for s, c in sorted(overall.items())}},
            "luck": luck_out, "tables": _tabled_out(tabled), "vp": {"initial": initial, "timeline": timeline, "final": totals}}


def _count_tabled(by_table: dict, target: dict, outcome: Any) -> None:
    """One tabled roll that stands: its result achieved, and each result's probability expected
    (from the column's rows recorded in the roll, so a later correction of the data file changes
    nothing here)."""
    try:
        expected = tables.distribution(target)
    except (KeyError, TypeError, ValueError, IndexError):
        return  # a redacted or malformed target: not counted
    entry = by_table.setdefault(str(target["table"]), {"rolls": 0, "results": {}})
    entry["rolls"] += 1
    for result, p in expected.items():
        r = entry["results"].setdefault(result, {"achieved": 0, "expected": 0.0, "variance": 0.0})
        r["expected"] += p
        r["variance"] += p * (1 - p)
    r = entry["results"].setdefault(str(outcome), {"achieved": 0, "expected": 0.0, "variance": 0.0})
    r["achieved"] += 1


def _tabled_out(tabled: dict) -> dict:
    """Per seat and table: rolls, and per result achieved, expected, luck (achieved − expected) and z."""
    out: dict = {}
    for seat, by_table in sorted(tabled.items()):
        out[seat] = {}
        for name, e in sorted(by_table.items()):
            results = {}
            for result, r in sorted(e["results"].items()):
                diff = r["achieved"] - r["expected"]
                results[result] = {"achieved": r["achieved"], "expected": round(r["expected"], 6),
                                   "luck": round(diff, 6),
                                   "z": round(diff / math.sqrt(r["variance"]), 6) if r["variance"] > 0 else None}
            out[seat][name] = {"rolls": e["rolls"], "results": results}
    return out


# ========================================================================== across games ====
def _summary(values: list[float]) -> dict:
    if not values:
        return {"n": 0, "mean": None, "median": None, "min": None, "max": None}
    return {"n": len(values), "mean": round(pystats.fmean(values), 4), "median": pystats.median(values),
            "min": min(values), "max": max(values)}


class _RulesetTally:
    def __init__(self) -> None:
        self.games = 0
        self.ended = 0
        self.draws = 0
        self.sides_played: Counter = Counter()
        self.wins: Counter = Counter()
        self.events: list[int] = []
        self.turns: list[int] = []
        self.final_vp: dict[str, list[int]] = defaultdict(list)
        self.orders: Counter = Counter()
        self.random_events: Counter = Counter()
        self.d66: Counter = Counter()
        self.faces: dict[int, Counter] = defaultdict(Counter)


def is_sandbox(lines: list[dict]) -> bool:
    """Whether a game's lines are a sandbox's: SandboxForked follows its GameCreated."""
    return any(line.get("type") == "SandboxForked" for line in lines[1:3])


class CrossGame:
    """Statistics across games, per ruleset, fed one game's lines at a time (``add``). Sandboxes
    (what-if forks of a game, docs/rulesets.md) are left out, and counted in ``sandboxes_left_out``,
    unless ``sandboxes``."""

    def __init__(self, ruleset: str | None = None, *, sandboxes: bool = False):
        self.ruleset = ruleset
        self.sandboxes = sandboxes
        self.tallies: dict[str, _RulesetTally] = defaultdict(_RulesetTally)
        self.skipped = 0
        self.sandboxes_left_out = 0

    def add(self, lines: list[dict]) -> bool:
        """Count one game; False (and counted as skipped) when it is of another ruleset, or (and
        counted as left out) a sandbox when sandboxes are not asked for."""
        if not lines or lines[0].get("type") != "GameCreated":
            self.skipped += 1
            return False
        created = lines[0].get("data") or {}
        name = created.get("ruleset")
        if self.ruleset is not None and name != self.ruleset:
            return False
        if not self.sandboxes and is_sandbox(lines):
            self.sandboxes_left_out += 1
            return False
        t = self.tallies[name]
        t.games += 1
        setup = created.get("setup") if isinstance(created.get("setup"), dict) else {}
        sides = setup.get("sides") or [s for s in created.get("seats") or [] if s != "system"]
        t.sides_played.update(sides)
        vp = dict(setup.get("vp") or {})
        turn = setup.get("turn") or 1
        gone: set[int] = set()
        gone_rolls: set[int] = set()
        for line in lines:  # take-backs first: what they supersede does not count
            if line["type"] == "TakeBackAccepted":
                d = line.get("data") or {}
                if isinstance(d.get("superseded_from"), int) and isinstance(d.get("superseded_to"), int):
                    gone.update(range(d["superseded_from"], d["superseded_to"] + 1))
                gone_rolls.update(s for s in d.get("superseded_rolls") or [] if isinstance(s, int))
        ended = None
        for line in lines:
            kind, d, seq = line["type"], line.get("data") or {}, line["seq"]
            if kind == "DiceRolled":
                for die in d.get("dice") or []:
                    if isinstance(die, dict) and isinstance(die.get("sides"), int):
                        t.faces[die["sides"]][die.get("value")] += 1
                if d.get("notation") == "d66" and seq not in gone_rolls and len(d.get("dice") or []) == 2:
                    a, b = (x.get("value") for x in d["dice"])
                    t.d66[f"{a}{b}"] += 1
                continue
            if seq in gone:
                continue
            if kind == "OrderAccepted":
                order = d.get("order") if isinstance(d.get("order"), dict) else {}
                t.orders[str(order.get("kind"))] += 1
            elif kind == "RandomEventDrawn":
                t.random_events[str(d.get("result"))] += 1
            elif kind == "VPScored" and isinstance(d.get("side"), str):
                vp[d["side"]] = d.get("total")
            elif kind in ("TurnAdvanced", "PhaseAdvanced") and isinstance(d.get("turn"), int):
                turn = d["turn"]
            elif kind == "GameEnded":
                ended = d
        t.events.append(lines[-1]["seq"])
        t.turns.append(turn)
        if ended is not None:
            t.ended += 1
            if ended.get("winner") is None:
                t.draws += 1
            else:
                t.wins[ended["winner"]] += 1
            for side, total in vp.items():
                if isinstance(total, (int, float)):
                    t.final_vp[side].append(total)
        return True

    def result(self) -> dict:
        out = {}
        for name, t in sorted(self.tallies.items(), key=lambda kv: str(kv[0])):
            d66_keys = [f"{a}{b}" for a in range(1, 7) for b in range(1, 7)]
            d66 = {**chi_square(dict(t.d66), d66_keys), "counts": {k: t.d66.get(k, 0) for k in d66_keys},
                   "expected_each": round(sum(t.d66.values()) / 36, 4)}
            rnd_total = sum(t.random_events.values())
            out[str(name)] = {
                "games": t.games, "ended": t.ended, "draws": t.draws,
                "win_rate": {side: {"played": t.sides_played[side], "wins": t.wins.get(side, 0),
                                    "rate": round(t.wins.get(side, 0) / t.ended, 6) if t.ended else None}
                             for side in sorted(t.sides_played)},
                "length": {"events": _summary(t.events), "turns": _summary(t.turns)},
                "final_vp": {side: {**_summary(v), "histogram": dict(sorted(Counter(v).items()))}
                             for side, v in sorted(t.final_vp.items())},
                "operations": dict(t.orders.most_common()),
                "random_events": {"counts": dict(t.random_events.most_common()), "n": rnd_total,
                                  **({"uniform": chi_square(dict(t.random_events))} if rnd_total else {})},
                "d66": d66,
                "dice": {f"d{s}": _faces_block(c, s) for s, c in sorted(t.faces.items())},
            }
        return {"rulesets": out, "skipped": self.skipped, "sandboxes_left_out": self.sandboxes_left_out}


def cross_game_statistics(games: Iterable[list[dict]], ruleset: str | None = None, *,
                          sandboxes: bool = False) -> dict:
    """``CrossGame`` over an iterable of games (each a list of export lines), consumed lazily."""
    acc = CrossGame(ruleset, sandboxes=sandboxes)
    for lines in games:
        acc.add(lines)
    return acc.result()


# ================================================================================ charts ====
_PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
_FONT = 'font-family="sans-serif"'


def _svg(width: int, height: int, body: list[str], title: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">'
            f'<rect width="100%" height="100%" fill="white"/>'
            f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="15" {_FONT}>{escape(title)}</text>'
            + "".join(body) + "</svg>")


def bar_chart_svg(groups: dict[str, dict[str, int]], title: str, *, width: int = 640, height: int = 320) -> str:
    """Grouped bars: one group per category (a face), one bar per series (a seat), with the
    uniform expectation of each series drawn as a dashed line."""
    series = list(groups)
    cats = sorted({c for counts in groups.values() for c in counts}, key=lambda c: (len(c), c))
    left, right, top, bottom = 50, 20, 50, 45
    pw, ph = width - left - right, height - top - bottom
    top_value = max([1] + [v for counts in groups.values() for v in counts.values()])
    body = [f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="black"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="black"/>']
    for i in range(5):
        v = top_value * i / 4
        y = top + ph - ph * i / 4
        body.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11" {_FONT}>{v:.0f}</text>')
        body.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#ddd"/>')
    gw = pw / max(len(cats), 1)
    bw = gw * 0.8 / max(len(series), 1)
    for j, name in enumerate(series):
        color = _PALETTE[j % len(_PALETTE)]
        counts = groups[name]
        for i, cat in enumerate(cats):
            v = counts.get(cat, 0)
            h = ph * v / top_value
            x = left + gw * i + gw * 0.1 + bw * j
            body.append(f'<rect x="{x:.1f}" y="{top + ph - h:.1f}" width="{bw:.1f}" height="{h:.1f}" fill="{color}">'
                        f'<title>{escape(name)} {escape(cat)}: {v}</title></rect>')
        expected = sum(counts.values()) / max(len(cats), 1)
        y = top + ph - ph * expected / top_value
        body.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="{color}" '
                    f'stroke-dasharray="5,4"/>')
        body.append(f'<rect x="{left + 10 + 110 * j}" y="{height - 16}" width="10" height="10" fill="{color}"/>'
                    f'<text x="{left + 24 + 110 * j}" y="{height - 7}" font-size="11" {_FONT}>{escape(name)}</text>')
    for i, cat in enumerate(cats):
        body.append(f'<text x="{left + gw * i + gw / 2:.1f}" y="{top + ph + 15}" text-anchor="middle" '
                    f'font-size="11" {_FONT}>{escape(cat)}</text>')
    return _svg(width, height, body, title)


def line_chart_svg(series: dict[str, list[tuple[float, float]]], title: str, *, x_max: float | None = None,
                   width: int = 640, height: int = 300, cursor: bool = False) -> str:
    """Step lines (a VP total holds until it changes), one per side; with ``cursor`` a vertical
    line ``id="cursor"`` that a replay moves with the current step."""
    left, right, top, bottom = 50, 20, 40, 45
    pw, ph = width - left - right, height - top - bottom
    xs = [x for pts in series.values() for x, _ in pts]
    ys = [y for pts in series.values() for _, y in pts]
    x_hi = x_max if x_max is not None else max(xs + [1])
    y_lo, y_hi = min(ys + [0]), max(ys + [1])
    if y_hi == y_lo:
        y_hi = y_lo + 1

    def px(x: float) -> float:
        return left + pw * x / (x_hi or 1)

    def py(y: float) -> float:
        return top + ph - ph * (y - y_lo) / (y_hi - y_lo)

    body = [f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="black"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="black"/>',
            f'<text x="{left + pw / 2}" y="{height - 22}" text-anchor="middle" font-size="11" {_FONT}>event seq</text>']
    for i in range(5):
        v = y_lo + (y_hi - y_lo) * i / 4
        body.append(f'<text x="{left - 6}" y="{py(v) + 4:.1f}" text-anchor="end" font-size="11" {_FONT}>{v:g}</text>')
        body.append(f'<line x1="{left}" y1="{py(v):.1f}" x2="{left + pw}" y2="{py(v):.1f}" stroke="#ddd"/>')
        body.append(f'<text x="{px(x_hi * i / 4):.1f}" y="{top + ph + 15}" text-anchor="middle" font-size="11" '
                    f'{_FONT}>{x_hi * i / 4:.0f}</text>')
    for j, (name, pts) in enumerate(series.items()):
        color = _PALETTE[j % len(_PALETTE)]
        if pts:
            d = [f"M{px(pts[0][0]):.1f},{py(pts[0][1]):.1f}"]
            for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
                d.append(f"H{px(x1):.1f}V{py(y1):.1f}")
            d.append(f"H{px(x_hi):.1f}")
            body.append(f'<path d="{"".join(d)}" fill="none" stroke="{color}" stroke-width="2"/>')
        body.append(f'<rect x="{left + 10 + 110 * j}" y="{height - 16}" width="10" height="10" fill="{color}"/>'
                    f'<text x="{left + 24 + 110 * j}" y="{height - 7}" font-size="11" {_FONT}>{escape(name)}</text>')
    if cursor:
        body.append(f'<line id="cursor" x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="#555" '
                    f'stroke-width="1.5" data-left="{left}" data-width="{pw}" data-xmax="{x_hi}"/>')
    return _svg(width, height, body, title)


def vp_series(stats_vp: dict) -> dict[str, list[tuple[float, float]]]:
    """The VP timeline as one step series per side, starting at the initial totals (seq 1)."""
    series: dict[str, list[tuple[float, float]]] = {side: [(1, total)] for side, total in (stats_vp["initial"] or {}).items()}
    for e in stats_vp["timeline"]:
        if isinstance(e["side"], str) and isinstance(e["total"], (int, float)):
            series.setdefault(e["side"], [(1, 0)]).append((e["seq"], e["total"]))
    return series


def charts(stats: dict) -> dict[str, str]:
    """The SVG charts of one game's statistics: ``faces`` (each seat's dice of the most-rolled
    die size against uniform) and ``vp`` (the VP timeline)."""
    sizes = Counter()
    for blocks in stats["dice"]["by_seat"].values():
        for size, block in blocks.items():
            sizes[size] += block["n"]
    out = {}
    if sizes:
        size = sizes.most_common(1)[0][0]
        groups = {seat: blocks[size]["faces"] for seat, blocks in stats["dice"]["by_seat"].items() if size in blocks}
        p = stats["dice"]["all"][size]["p"]
        out["faces"] = bar_chart_svg(groups, f"{size} faces per seat (dashed: uniform)"
                                     + (f", p = {p:.3f}" if p is not None else ""))
    else:
        out["faces"] = bar_chart_svg({}, "no dice rolled")
    out["vp"] = line_chart_svg(vp_series(stats["vp"]), "Victory points", x_max=stats["version"])
    return out
