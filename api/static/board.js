/* warlog pages: a game's map drawn as SVG from its ruleset's board() and a state.
 *
 * Generic: any ruleset whose board() gives {maps: {name: {width, height}}, areas: {id: {name, kind,
 * map, polygon, label_xy, ...}}, units: {id: {name, abbr, side, class, type, steps}}} and whose
 * state holds units: {id: {location, aboard, steps, eliminated}} is drawn: one SVG per map, every
 * area by its polygon, the counters stacked at the area's label_xy with their abbreviation, their
 * steps (pips) and a Hit marker when a unit has lost steps. Units aboard a ship ride on its
 * counter (+N). Below the maps, the same as a list, for screen readers and small screens.
 *
 * Above the maps, the board's tracks (board.tracks: UK operations left...) and what is in effect
 * (board.effects names the state's effects and markers).
 *
 * A hex map is a board with a grid instead of areas: {grid: {orientation, layout, columns, rows,
 * naming, first_column, first_row, rows_from}, terrain_default, terrain: {hex: kind}, terrain_styles:
 * {kind: {name, fill}}, units}. Its hexes' positions are computed from the grid (the same geometry as
 * domain/rulesets/toolkit/hexes.py), drawn as one SVG path per terrain kind (not an element per hex),
 * and units stand in the hex their state's location names ("L8").
 *
 * Warlog.Board.draw(container, board, state, {highlight: {moved: {unit: fromArea}, hit: [unit]}})
 * Warlog.Board.changes(before, after): what moved or was hit between two states.
 * Warlog.Board.nameOf(board, id), Warlog.Board.words(board, value): ids as the game names them.
 */
(function () {
  "use strict";
  var W = (window.Warlog = window.Warlog || {});
  var NS = "http://www.w3.org/2000/svg";
  // Fill and text colour per side, in the order the board first names the sides (contrast >= 4.5).
  var PALETTE = [["#8e1b16", "#ffffff"], ["#1d4e89", "#ffffff"], ["#2e6b30", "#ffffff"],
                 ["#5b2d82", "#ffffff"], ["#7a4b00", "#ffffff"], ["#37474f", "#ffffff"]];
  var KIND_FILL = { sea: "#cfe3f3", land: "#e3e9c6", mainland: "#d8cfbf", box: "#efefef" };
  var WATER = "#b9d6ee", PAPER = "#f6f3ea";

  function svg(tag, attrs) {
    var node = document.createElementNS(NS, tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (attrs[k] !== undefined && attrs[k] !== null) node.setAttribute(k, String(attrs[k]));
    });
    for (var i = 2; i < arguments.length; i++) {
      var kid = arguments[i];
      if (kid === null || kid === undefined) continue;
      node.appendChild(typeof kid === "string" ? document.createTextNode(kid) : kid);
    }
    return node;
  }

  function title(text) { return svg("title", null, text); }

  function sideOrder(board, state) {
    var sides = [];
    Object.keys(board.units || {}).forEach(function (id) {
      var side = board.units[id].side;
      if (side && sides.indexOf(side) < 0) sides.push(side);
    });
    ((state && state.sides) || []).forEach(function (side) { if (sides.indexOf(side) < 0) sides.push(side); });
    return sides;
  }

  function colours(board, state) {
    var out = {};
    sideOrder(board, state).forEach(function (side, k) { out[side] = PALETTE[k % PALETTE.length]; });
    return out;
  }

  /** The maps to draw: board.maps, or one map around every polygon when it names none. */
  function maps(board) {
    if (board.maps && Object.keys(board.maps).length) return board.maps;
    var w = 0, h = 0;
    Object.keys(board.areas).forEach(function (id) {
      (board.areas[id].polygon || []).forEach(function (p) { w = Math.max(w, p[0]); h = Math.max(h, p[1]); });
    });
    return { map: { width: w || 1000, height: h || 600 } };
  }

  function mapOf(board, area) {
    var names = Object.keys(maps(board));
    return area.map && names.indexOf(area.map) >= 0 ? area.map : names[0];
  }

  function centre(area) {
    if (area.label_xy) return area.label_xy;
    var pts = area.polygon || [[0, 0]], x = 0, y = 0;
    pts.forEach(function (p) { x += p[0]; y += p[1]; });
    return [x / pts.length, y / pts.length];
  }

  /** Which units stand where: {byArea: {area: [unit]}, aboard: {ship: [unit]}, off: [unit], gone: [unit]}. */
  function placement(board, state) {
    var units = (state && state.units) || {}, out = { byArea: {}, aboard: {}, off: [], gone: [] };
    var info = board.units || {};
    var sides = sideOrder(board, state);
    var ids = Object.keys(units).sort(function (a, b) {
      var ia = info[a] || {}, ib = info[b] || {};
      return (sides.indexOf(ia.side) - sides.indexOf(ib.side)) ||
        String(ia["class"] || "").localeCompare(String(ib["class"] || "")) || a.localeCompare(b);
    });
    ids.forEach(function (id) {
      var u = units[id];
      if (!u || typeof u !== "object") return;
      if (u.eliminated) out.gone.push(id);
      else if (u.aboard) (out.aboard[u.aboard] = out.aboard[u.aboard] || []).push(id);
      else if (u.location && isPlace(board, u.location)) (out.byArea[u.location] = out.byArea[u.location] || []).push(id);
      else out.off.push(id);
    });
    return out;
  }

  /** Is id a place of the board: one of its areas, or a hex of its grid? */
  function isPlace(board, id) {
    if (board.grid) return !!hexGrid(board).index(id);
    return !!(board.areas || {})[id];
  }

  /** A place's name: an area's name, or a hex's own (its id: "L8"). */
  function placeName(board, id) {
    var area = (board.areas || {})[id];
    return (area && area.name) || id;
  }

  function unitName(board, id) {
    var info = (board.units || {})[id] || {};
    return info.name || id;
  }

  /** The game's own name for an id: a unit's or an area's name from the board, else the id itself. */
  function nameOf(board, id) {
    if (typeof id !== "string") return String(id);
    var unit = board && (board.units || {})[id], area = board && (board.areas || {})[id];
    return (unit && unit.name) || (area && area.name) || id;
  }

  /** A choice or a decision's options in words, every id by its name:
   * {"area": "sa1", "units": ["hermes"]} -> "area: Sea Area 1; units: Hermes". */
  function words(board, value) {
    if (value === null || value === undefined) return "none";
    if (Array.isArray(value)) {
      return value.length ? value.map(function (v) {
        return v && typeof v === "object" ? "(" + words(board, v) + ")" : words(board, v);
      }).join(", ") : "none";
    }
    if (typeof value === "object") {
      return Object.keys(value).map(function (k) {
        var key = nameOf(board, k);
        return (key === k ? k.replace(/_/g, " ") : key) + ": " + words(board, value[k]);
      }).join("; ");
    }
    if (typeof value === "boolean") return value ? "yes" : "no";
    return nameOf(board, value);
  }

  function unitText(board, state, id) {
    var info = (board.units || {})[id] || {}, u = state.units[id] || {};
    var full = info.steps || u.steps || 1;
    var parts = [unitName(board, id)];
    if (info.side) parts.push(info.side);
    if (info.type) parts.push(info.type);
    if (u.steps !== undefined) parts.push(u.steps + " of " + full + " steps");
    if (u.steps !== undefined && u.steps < full && !u.eliminated) parts.push("Hit");
    return parts.join(", ");
  }

  function counter(board, state, id, x, y, cw, ch, colour, passengers, flags) {
    var info = (board.units || {})[id] || {}, u = state.units[id] || {};
    var full = info.steps || 1, steps = u.steps === undefined ? full : u.steps;
    var hit = steps < full && !u.eliminated;
    var cls = "counter" + (flags.moved ? " moved" : "") + (flags.hit ? " struck" : "") + (hit ? " hit" : "");
    var g = svg("g", { "class": cls, "data-unit": id, "data-steps": steps, "data-side": info.side || "",
                       transform: "translate(" + x.toFixed(2) + " " + y.toFixed(2) + ")" });
    var text = unitText(board, state, id);
    if (passengers.length) text += "; " + aboardWord(board).word + " " + passengers.map(function (p) { return unitName(board, p); }).join(", ");
    g.appendChild(title(text));
    var outline = flags.moved ? "#c2185b" : flags.hit ? "#ff6f00" : "#111";
    g.appendChild(svg("rect", { "class": "face", width: cw.toFixed(2), height: ch.toFixed(2), rx: (cw * 0.08).toFixed(2),
                                fill: colour[0], stroke: outline,
                                "stroke-width": (outline === "#111" ? Math.min(1.2, cw * 0.03) : cw * 0.075).toFixed(2) }));
    g.appendChild(svg("text", { "class": "abbr", x: (cw / 2).toFixed(2), y: (ch * 0.52).toFixed(2), fill: colour[1],
                                "font-size": (ch * 0.4).toFixed(2), "text-anchor": "middle" },
                      String(info.abbr || id).slice(0, 7)));
    for (var s = 0; s < full && full > 1; s++) {  // one pip per step: filled while the step remains
      g.appendChild(svg("circle", { "class": "pip" + (s < steps ? " on" : ""), r: (ch * 0.08).toFixed(2),
                                    cx: (cw * 0.16 + s * ch * 0.24).toFixed(2), cy: (ch * 0.8).toFixed(2),
                                    fill: s < steps ? colour[1] : "none", stroke: colour[1], "stroke-width": Math.min(1, ch * 0.04).toFixed(2) }));
    }
    if (hit) {
      var m = ch * 0.5;
      g.appendChild(svg("g", { "class": "hit-marker", transform: "translate(" + (cw - m * 0.7).toFixed(2) + " " + (-m * 0.3).toFixed(2) + ")" },
        svg("rect", { width: m.toFixed(2), height: m.toFixed(2), fill: "#ffd400", stroke: "#111", "stroke-width": Math.min(1, m * 0.08).toFixed(2) }),
        svg("text", { x: (m / 2).toFixed(2), y: (m * 0.78).toFixed(2), "font-size": (m * 0.8).toFixed(2),
                      "text-anchor": "middle", "font-weight": "700", fill: "#111" }, "H")));
    }
    if (passengers.length) {
      var r = ch * 0.26;
      g.appendChild(svg("g", { "class": "aboard", transform: "translate(" + (cw - r * 0.4).toFixed(2) + " " + (ch - r * 0.3).toFixed(2) + ")" },
        svg("circle", { r: r.toFixed(2), fill: "#fff", stroke: "#111", "stroke-width": Math.min(1, r * 0.15).toFixed(2) }),
        svg("text", { y: (r * 0.4).toFixed(2), "font-size": (r * 1.05).toFixed(2), "text-anchor": "middle", fill: "#111" },
            "+" + passengers.length)));
    }
    return g;
  }

  function arrowDefs(id) {
    return svg("defs", null, svg("marker", { id: id, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7,
                                             markerHeight: 7, orient: "auto-start-reverse" },
                                 svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#c2185b" })));
  }

  // ---- where an area's counters go: cells inside its polygon and the map, clear of every label ----
  /** Is (x, y) inside the polygon (even-odd rule)? */
  function insidePolygon(poly, x, y) {
    var yes = false;
    for (var i = 0, j = poly.length - 1; i < poly.length; j = i++) {
      var a = poly[i], b = poly[j];
      if ((a[1] > y) !== (b[1] > y) && x < (b[0] - a[0]) * (y - a[1]) / (b[1] - a[1]) + a[0]) yes = !yes;
    }
    return yes;
  }

  /** Do segments p-q and r-s cross (touching counts)? */
  function segmentsCross(p, q, r, s) {
    function side(a, b, c) { return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]); }
    var d1 = side(r, s, p), d2 = side(r, s, q), d3 = side(p, q, r), d4 = side(p, q, s);
    return ((d1 > 0) !== (d2 > 0) || d1 === 0 || d2 === 0) && ((d3 > 0) !== (d4 > 0) || d3 === 0 || d4 === 0);
  }

  /** Is the box {x, y, w, h} wholly inside the polygon: its corners inside, no edge of the polygon crossing it? */
  function boxInPolygon(poly, b) {
    var c = [[b.x, b.y], [b.x + b.w, b.y], [b.x + b.w, b.y + b.h], [b.x, b.y + b.h]], k, i;
    for (k = 0; k < 4; k++) if (!insidePolygon(poly, c[k][0], c[k][1])) return false;
    for (i = 0; i < poly.length; i++) {
      var p = poly[i], q = poly[(i + 1) % poly.length];
      if (p[0] > b.x && p[0] < b.x + b.w && p[1] > b.y && p[1] < b.y + b.h) return false;
      for (k = 0; k < 4; k++) if (segmentsCross(p, q, c[k], c[(k + 1) % 4])) return false;
    }
    return true;
  }

  function boxesMeet(a, b) {
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
  }

  /** The room a line of text takes, estimated (the layout runs before the text is rendered): wide
   * enough for a bold system font, the map symbols (★ ✈ ▲ ▣) a full em or more. */
  function textBox(text, x, y, size, anchor) {
    var em = 0;
    String(text).split("").forEach(function (ch) { em += ch.charCodeAt(0) > 127 ? 1.15 : 0.66; });
    var w = em * size + 6, h = size * 1.35;
    return { x: anchor === "middle" ? x - w / 2 : x - 3, y: y - size * 1.05, w: w, h: h };
  }

  /** The counter's footprint at (x, y): its face and what may stick out of it (the Hit marker above
   * and right, the +N badge below and right, the outline of a moved or struck counter). */
  function footprint(x, y, cw, ch) {
    var pad = cw * 0.05;
    return { x: x - pad, y: y - ch * 0.15 - pad, w: cw + ch * 0.16 + 2 * pad, h: ch * 1.34 + 2 * pad };
  }

  /** Up to n positions for counters of cw x ch in the area, nearest first to just under its label:
   * the largest counters (from cw down) for which n cells lie wholly inside the area's polygon and
   * the map, clear of every label on the map. Returns {cw, ch, cells: [[x, y]]}. */
  var SHIFTS = [[0, 0], [0.5, 0], [0, 0.5], [0.5, 0.5], [0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]];

  function layout(poly, size, anchor, blocked, n, cw0) {
    var minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    poly.forEach(function (p) {
      minX = Math.min(minX, p[0]); minY = Math.min(minY, p[1]); maxX = Math.max(maxX, p[0]); maxY = Math.max(maxY, p[1]);
    });
    minX = Math.max(minX, 0); minY = Math.max(minY, 0); maxX = Math.min(maxX, size.w); maxY = Math.min(maxY, size.h);
    var best = null;
    for (var scale = 1; scale > 0.01; scale *= 0.88) {
      var cw = cw0 * scale, ch = cw * 0.64, f = footprint(0, 0, cw, ch), pitchX = f.w + cw * 0.02, pitchY = f.h + cw * 0.02;
      var found = null;
      SHIFTS.forEach(function (shift) {
        if (found && found.length >= n) return;
        // one column centred under the label, the rows from the label's foot
        var x0 = anchor[0] - cw / 2 - Math.ceil((anchor[0] - cw / 2 - minX) / pitchX) * pitchX + shift[0] * pitchX;
        var y0 = anchor[1] - Math.ceil((anchor[1] - minY) / pitchY) * pitchY + shift[1] * pitchY;
        var cells = [];
        for (var y = y0; y + ch <= maxY; y += pitchY) {
          for (var x = x0; x + cw <= maxX; x += pitchX) {
            var box = footprint(x, y, cw, ch);
            if (box.x < 0 || box.y < 0 || box.x + box.w > size.w || box.y + box.h > size.h) continue;
            if (blocked.some(function (b) { return boxesMeet(box, b); }) || !boxInPolygon(poly, box)) continue;
            cells.push([x, y]);
          }
        }
        if (!found || cells.length > found.length) found = cells;
      });
      best = { cw: cw, ch: ch, cells: found };
      if (found.length >= n) break;
    }
    // rows under the label first, each filled from the middle out; then the rows above it, upwards
    var x0 = anchor[0] - best.cw / 2;
    function rank(c) { return c[1] >= anchor[1] - 0.5 ? c[1] - anchor[1] : 1e6 + anchor[1] - c[1]; }
    best.cells.sort(function (a, b) { return rank(a) - rank(b) || Math.abs(a[0] - x0) - Math.abs(b[0] - x0); });
    best.cells = best.cells.slice(0, n).sort(function (a, b) { return a[1] - b[1] || a[0] - b[0]; });
    return best;
  }

  function marksOf(area) {
    var marks = [];
    if (area.vp) marks.push("★" + area.vp);
    if (area.airbase) marks.push("✈" + area.airbase);
    if (area.mountains) marks.push("▲");
    if (area.entrenched) marks.push("▣");
    if (area.tez) marks.push("TEZ");
    return marks.join(" ");
  }

  /** Where each label of a map goes and the room it takes: {areas: {area: {x, y, marks}}, lines:
   * {line: {x, y}}, boxes: [box]}. A name is moved sideways to stay on the map. */
  function mapLabels(name, size, board, areas, fontSize) {
    var w = size.width || 1000, out = { areas: {}, lines: {}, boxes: [] };
    areas.forEach(function (a) {
      var area = board.areas[a], at = centre(area), marks = marksOf(area);
      var box = textBox(area.name || a, at[0], at[1], fontSize, "middle"), x = at[0];
      if (box.x < 0) x -= box.x;
      if (box.x + box.w > w) x -= box.x + box.w - w;
      box = textBox(area.name || a, x, at[1], fontSize, "middle");
      box.area = a;
      out.boxes.push(box);
      if (marks) {
        out.boxes.push(box = textBox(marks, x, at[1] + fontSize * 1.05, fontSize * 0.85, "middle"));
        box.area = a;
      }
      // the counters' first row: under the last line, clear of a Hit marker sticking out above a counter
      out.areas[a] = { x: x, y: at[1], marks: marks, foot: box.y + box.h + w * 0.004 + 3 };
    });
    Object.keys(size).forEach(function (key) {
      var pts = size[key];
      if (!Array.isArray(pts) || pts.length < 2 || !Array.isArray(pts[0])) return;
      var at = { x: pts[0][0] + w / 150, y: pts[0][1] + fontSize * 1.2 };
      out.lines[key] = at;
      out.boxes.push(textBox(key.replace(/_/g, " "), at.x, at.y, fontSize * 0.85, "start"));
    });
    areas.forEach(function (a) { labelOutside(a, board, areas, size, fontSize, out); });
    return out;
  }

  /** Does the box touch the polygon at all? */
  function boxMeetsPolygon(poly, b) {
    var c = [[b.x, b.y], [b.x + b.w, b.y], [b.x + b.w, b.y + b.h], [b.x, b.y + b.h]], k, i;
    for (k = 0; k < 4; k++) if (insidePolygon(poly, c[k][0], c[k][1])) return true;
    for (i = 0; i < poly.length; i++) {
      var p = poly[i], q = poly[(i + 1) % poly.length];
      if (p[0] >= b.x && p[0] <= b.x + b.w && p[1] >= b.y && p[1] <= b.y + b.h) return true;
      for (k = 0; k < 4; k++) if (segmentsCross(p, q, c[k], c[(k + 1) % 4])) return true;
    }
    return false;
  }

  /** An area too small for one full-size counter beside its label (a small island) gets its label
   * just above it, or below, over open map (no area, no other label there), and its counters the
   * whole area. */
  function labelOutside(a, board, areas, size, fontSize, out) {
    var area = board.areas[a], poly = area.polygon, w = size.width || 1000, h = size.height || 600;
    if (!poly || poly.length < 3) return;
    var label = out.areas[a], cw0 = Math.max(28, w * 0.04);
    var mine = out.boxes.filter(function (b) { return b.area === a; });
    var others = out.boxes.filter(function (b) { return b.area !== a; });
    if (layout(poly, { w: w, h: h }, [label.x, label.foot], out.boxes, 1, cw0).cw >= cw0 * 0.75) return;
    var top = Math.min.apply(null, mine.map(function (b) { return b.y; }));
    var bottom = Math.max.apply(null, mine.map(function (b) { return b.y + b.h; }));
    var ys = poly.map(function (p) { return p[1]; }), minY = Math.min.apply(null, ys), maxY = Math.max.apply(null, ys);
    [minY - 2 - bottom, maxY + 2 - top].some(function (dy) {
      var moved = mine.map(function (b) { return { x: b.x, y: b.y + dy, w: b.w, h: b.h, area: a }; });
      var clear = moved.every(function (b) {
        return b.y >= 0 && b.y + b.h <= h && b.x >= 0 && b.x + b.w <= w &&
          !others.some(function (o) { return boxesMeet(b, o); }) &&
          !areas.some(function (o) { var p = board.areas[o].polygon; return p && p.length > 2 && boxMeetsPolygon(p, b); });
      });
      if (!clear) return false;
      out.boxes = others.concat(moved);
      var centre = polygonCentre(poly);
      out.areas[a] = { x: label.x, y: label.y + dy, marks: label.marks, foot: centre[1] - cw0 * 0.35 };
      return true;
    });
  }

  function polygonCentre(poly) {
    var xs = poly.map(function (p) { return p[0]; }), ys = poly.map(function (p) { return p[1]; });
    return [(Math.min.apply(null, xs) + Math.max.apply(null, xs)) / 2, (Math.min.apply(null, ys) + Math.max.apply(null, ys)) / 2];
  }

  var spots = typeof WeakMap === "function" ? new WeakMap() : null;

  /** What is worked out once per board (the replay redraws at every step): labels, counters' cells. */
  function memoOf(board) {
    return spots && (spots.get(board) || (spots.set(board, {}), spots.get(board)));
  }

  /** mapLabels, kept per board and map. */
  function labelsOf(name, size, board, areas, fontSize) {
    var memo = memoOf(board), key = "labels\u0000" + name;
    if (memo && memo[key]) return memo[key];
    var found = mapLabels(name, size, board, areas, fontSize);
    if (memo) memo[key] = found;
    return found;
  }

  /** The counters' size and cells for n counters in an area, kept per board. */
  function counterSpots(board, name, size, a, labels, n) {
    var memo = memoOf(board);
    var key = name + "\u0000" + a + "\u0000" + n;
    if (memo && memo[key]) return memo[key];
    var w = size.width || 1000, h = size.height || 600, area = board.areas[a];
    var poly = area.polygon && area.polygon.length > 2 ? area.polygon : [[0, 0], [w, 0], [w, h], [0, h]];
    var label = labels.areas[a];
    var found = layout(poly, { w: w, h: h }, [label.x, label.foot], labels.boxes, n, Math.max(28, w * 0.04));
    if (memo) memo[key] = found;
    return found;
  }

  var drawn = 0;

  function drawMap(name, size, board, state, place, opts, colour, tally) {
    var w = size.width || 1000, h = size.height || 600, id = "map-" + (++drawn);
    var areas = Object.keys(board.areas).filter(function (a) { return mapOf(board, board.areas[a]) === name; });
    var hasSea = areas.some(function (a) { return board.areas[a].kind === "sea"; });
    var label = (name.charAt(0).toUpperCase() + name.slice(1)) + " map";
    var root = svg("svg", { "class": "map map-" + name, viewBox: "0 0 " + w + " " + h, role: "img",
                            "aria-labelledby": id + "-t", "data-map": name, preserveAspectRatio: "xMidYMid meet" });
    var counters = 0;
    areas.forEach(function (a) { counters += (place.byArea[a] || []).length; });
    root.appendChild(svg("title", { id: id + "-t" }, label + ": " + areas.length + " areas, " + counters + " counters"));
    root.appendChild(arrowDefs(id + "-arrow"));
    root.appendChild(svg("rect", { "class": "ground", width: w, height: h, fill: hasSea ? PAPER : WATER }));
    var highlight = opts.highlight || {}, moved = highlight.moved || {}, struck = highlight.hit || [];
    var lit = {};
    Object.keys(moved).forEach(function (u) {
      if (moved[u]) lit[moved[u]] = true;
      var now = state.units[u] && state.units[u].location;
      if (now) lit[now] = true;
    });
    (highlight.areas || []).forEach(function (a) { lit[a] = true; });
    var control = state.control || {};
    var layerAreas = svg("g", { "class": "areas" }), layerLabels = svg("g", { "class": "labels" });
    var layerCounters = svg("g", { "class": "counters" }), layerMoves = svg("g", { "class": "moves" });
    var fontSize = Math.max(10, w / 70);
    var labels = labelsOf(name, size, board, areas, fontSize);
    areas.forEach(function (a) {
      var area = board.areas[a];
      if (area.polygon && area.polygon.length > 2) {
        var owner = control[a], ring = owner && colour[owner] ? colour[owner][0] : null;
        layerAreas.appendChild(svg("polygon", {
          "class": "area kind-" + (area.kind || "area") + (area.tez ? " tez" : "") + (lit[a] ? " lit" : ""),
          "data-area": a, points: area.polygon.map(function (p) { return p[0] + "," + p[1]; }).join(" "),
          fill: KIND_FILL[area.kind] || "#eeeeee", stroke: ring || "#4a4a4a",
          "stroke-width": ring ? (w / 250).toFixed(1) : (w / 900).toFixed(2),
          "stroke-dasharray": area.kind === "box" ? "8 5" : null },
          title(area.name + (area.tez ? " (TEZ)" : "") + (owner ? ", held by " + owner : ""))));
      }
      var label = labels.areas[a];
      layerLabels.appendChild(svg("text", { "class": "area-name", "data-area": a, x: label.x.toFixed(1), y: label.y,
                                            "font-size": fontSize.toFixed(1), "text-anchor": "middle" }, area.name || a));
      if (label.marks) {
        layerLabels.appendChild(svg("text", { "class": "area-marks", "data-area": a, x: label.x.toFixed(1), y: label.y + fontSize * 1.05,
                                              "font-size": (fontSize * 0.85).toFixed(1), "text-anchor": "middle" },
                                    label.marks));
      }
      var here = place.byArea[a] || [];
      if (!here.length) return;
      var spot = counterSpots(board, name, size, a, labels, here.length);
      here.forEach(function (u, k) {
        var side = ((board.units || {})[u] || {}).side, cell = spot.cells[k];
        if (!cell) return;  // no room at all (an area smaller than a counter): the list below still names it
        tally.counters++;
        layerCounters.appendChild(counter(board, state, u, cell[0], cell[1], spot.cw, spot.ch, colour[side] || ["#555", "#fff"],
                                          place.aboard[u] || [], { moved: u in moved, hit: struck.indexOf(u) >= 0 }));
      });
    });
    Object.keys(moved).forEach(function (u) {
      var from = board.areas[moved[u]], to = board.areas[(state.units[u] || {}).location];
      if (!from || !to || mapOf(board, from) !== name || mapOf(board, to) !== name || from === to) return;
      var p = centre(from), q = centre(to);
      layerMoves.appendChild(svg("line", { "class": "move-arrow", "data-unit": u, x1: p[0], y1: p[1], x2: q[0], y2: q[1],
                                           stroke: "#c2185b", "stroke-width": (w / 220).toFixed(1),
                                           "stroke-dasharray": (w / 90).toFixed(1) + " " + (w / 200).toFixed(1),
                                           "marker-end": "url(#" + id + "-arrow)" },
                                      title(unitName(board, u) + ": " + (from.name || "") + " → " + (to.name || ""))));
    });
    root.appendChild(layerAreas);
    Object.keys(size).forEach(function (key) {  // lines of the map itself, e.g. a range line
      var pts = size[key];
      if (!Array.isArray(pts) || pts.length < 2 || !Array.isArray(pts[0])) return;
      var words = key.replace(/_/g, " ");
      root.appendChild(svg("polyline", { "class": "map-line", "data-line": key, fill: "none", stroke: "#6d4c41",
                                         "stroke-width": (w / 400).toFixed(1), "stroke-dasharray": (w / 80).toFixed(1) + " " + (w / 160).toFixed(1),
                                         points: pts.map(function (p) { return p[0] + "," + p[1]; }).join(" ") }, title(words)));
      var at = labels.lines[key];
      root.appendChild(svg("text", { "class": "area-marks", x: at.x, y: at.y, "font-size": (fontSize * 0.85).toFixed(1) }, words));
    });
    root.appendChild(layerLabels);
    root.appendChild(layerMoves);
    root.appendChild(layerCounters);
    return root;
  }

  /** How units that ride with another are said: ships carrying units, or (a board of groups) a
   * group's own units: its text's word and the legend's meaning of the counter's +N. */
  function aboardWord(board) {
    return board.aboard || { word: "carrying", legend: "units aboard" };
  }

  /** The "Units by …" section, or null when no unit is anywhere (a theatre's map before any force is bought). */
  function unitSection(board, state, place, title) {
    var list = unitList(board, state, place);
    return list.firstChild ? W.el("details", { class: "units" }, W.el("summary", { text: title }), list) : null;
  }

  function unitList(board, state, place) {
    var list = W.el("ul", { class: "unit-list" });
    var areas = Object.keys(place.byArea).sort(function (a, b) {
      return String(placeName(board, a)).localeCompare(String(placeName(board, b)), undefined, { numeric: true });
    });
    function names(ids) {
      return ids.map(function (u) {
        var aboard = place.aboard[u] || [];
        return unitText(board, state, u) + (aboard.length ? " (" + aboardWord(board).word + " " + aboard.map(function (p) {
          return unitName(board, p); }).join(", ") + ")" : "");
      }).join("; ");
    }
    areas.forEach(function (a) {
      list.appendChild(W.el("li", null, W.el("strong", { text: placeName(board, a) + ": " }), names(place.byArea[a])));
    });
    if (place.off.length) list.appendChild(W.el("li", null, W.el("strong", { text: "Not on the map: " }), names(place.off)));
    if (place.gone.length) list.appendChild(W.el("li", null, W.el("strong", { text: "Eliminated: " }),
      place.gone.map(function (u) { return unitName(board, u); }).join(", ")));
    return list;
  }

  // ---- the board's tracks and what is in effect ----
  /** A track's value in the state: its `value` key, or `of` less its `used` key; null when absent. */
  function trackValue(track, state) {
    var of = typeof track.of === "string" ? state[track.of] : track.of;
    var v = track.value !== undefined ? state[track.value]
      : typeof of === "number" && typeof state[track.used] === "number" ? of - state[track.used] : null;
    return typeof v === "number" ? { value: v, of: typeof of === "number" ? of : null } : null;
  }

  /** What is in effect, by side: the state's `effects` ({side: {id: detail}}) and the `markers` a side
   * holds ({side: [id]}), each named by board.effects; unnamed ids are bookkeeping, not shown. */
  function inEffect(board, state) {
    var names = board.effects || {}, out = [];
    function add(side, id, detail) {
      if (!names[id]) return;
      var extra = Object.keys(detail || {}).filter(function (k) {
        return k !== "event" && k !== "rule" && (typeof detail[k] === "number" || typeof detail[k] === "string");
      }).map(function (k) { return k.replace(/_/g, " ") + " " + detail[k]; });
      out.push({ side: side, id: id, text: names[id].name + (extra.length ? " (" + extra.join(", ") + ")" : ""),
                 rule: names[id].rule });
    }
    Object.keys(state.effects || {}).forEach(function (side) {
      var mine = state.effects[side];
      if (mine && typeof mine === "object") Object.keys(mine).forEach(function (id) { add(side, id, mine[id]); });
    });
    Object.keys(state.markers || {}).forEach(function (side) {
      (Array.isArray(state.markers[side]) ? state.markers[side] : []).forEach(function (id) { add(side, id, null); });
    });
    return out;
  }

  /** The tracks and the effects in play as text above the maps; null for a board that has neither. */
  function statusPanel(board, state) {
    if (!(board.tracks || []).length && !board.effects) return null;
    var box = W.el("div", { class: "board-status" });
    var tracks = W.el("p", { class: "tracks" });
    (board.tracks || []).forEach(function (t) {
      var v = trackValue(t, state);
      if (!v) return;
      tracks.appendChild(W.el("span", { class: "track", "data-track": t.value || t.used, title: t.rule || null },
        W.el("strong", { text: t.name + ": " }), v.value + (v.of !== null ? " of " + v.of : "")));
    });
    if (tracks.firstChild) box.appendChild(tracks);
    if (board.effects) {
      var effects = inEffect(board, state), list = W.el("ul", { class: "in-effect plain" });
      effects.forEach(function (e) {
        list.appendChild(W.el("li", { "data-effect": e.id, "data-side": e.side },
          W.el("strong", { text: e.side + ": " }), e.text, e.rule ? W.el("span", { class: "rule", text: " (" + e.rule + ")" }) : null));
      });
      box.appendChild(W.el("div", { class: "effects" }, W.el("strong", { text: "In effect" }),
        effects.length ? list : W.el("p", { class: "hint", text: "No event or marker in effect." })));
    }
    return box;
  }

  // ---- hex maps: a board with a grid (docs/pages.md, "Hex maps") ----
  var HEX = 20, SQRT3 = Math.sqrt(3);  // a hex's size in the drawing: centre to corner
  var grids = typeof WeakMap === "function" ? new WeakMap() : null;

  /** Column n (1-based) as a map letters it: A..Z, then AA, BB, ..., as hexes.py does. */
  function columnLetters(n) {
    var ch = String.fromCharCode(65 + (n - 1) % 26), out = "";
    for (var i = 0; i <= Math.floor((n - 1) / 26); i++) out += ch;
    return out;
  }

  function pad2(n) { return (n < 10 ? "0" : "") + n; }

  /** The grid's hexes (name, drawing column and row, centre), worked out once per board with the
   * geometry of domain/rulesets/toolkit/hexes.py: the columns (flat) or rows (pointy) whose number
   * has the layout's parity are drawn half a hex lower (flat) or further right (pointy). */
  function hexGrid(board) {
    var found = grids && grids.get(board);
    if (found) return found;
    var g = board.grid, flat = g.orientation !== "pointy", cols = g.columns, rows = g.rows;
    var firstCol = g.first_column === undefined ? 1 : g.first_column;
    var firstRow = g.first_row === undefined ? 1 : g.first_row;
    var parity = g.layout === "even" ? 0 : 1;
    function rowNumber(r) { return g.rows_from === "bottom" ? firstRow + rows - 1 - r : firstRow + r; }
    function shifted(i) { return (flat ? firstCol + i : rowNumber(i)) % 2 === parity; }
    var byName = {}, list = [];
    for (var r = 0; r < rows; r++) {
      for (var c = 0; c < cols; c++) {
        var cn = firstCol + c, rn = rowNumber(r);
        var name = g.naming === "CCRR" ? pad2(cn) + pad2(rn) : columnLetters(cn) + rn;
        var x = flat ? HEX + 1.5 * HEX * c : SQRT3 * HEX * (c + 0.5 + (shifted(r) ? 0.5 : 0));
        var y = flat ? SQRT3 * HEX * (r + 0.5 + (shifted(c) ? 0.5 : 0)) : HEX + 1.5 * HEX * r;
        byName[name] = { name: name, col: c, row: r, x: x, y: y };
        list.push(byName[name]);
      }
    }
    // one hex's outline from its first corner, as relative steps (one path holds many hexes)
    var steps = [], k, a0 = flat ? 0 : 30, first = [HEX * Math.cos(a0 * Math.PI / 180), HEX * Math.sin(a0 * Math.PI / 180)];
    for (k = 1; k <= 5; k++) {
      var a = (a0 + 60 * k) * Math.PI / 180, b = (a0 + 60 * (k - 1)) * Math.PI / 180;
      steps.push("l" + (HEX * (Math.cos(a) - Math.cos(b))).toFixed(2) + "," + (HEX * (Math.sin(a) - Math.sin(b))).toFixed(2));
    }
    var outline = steps.join("") + "z";
    found = {
      list: list, flat: flat,
      width: flat ? HEX * (2 + 1.5 * (cols - 1)) : SQRT3 * HEX * (cols + 0.5),
      height: flat ? SQRT3 * HEX * (rows + 0.5) : HEX * (2 + 1.5 * (rows - 1)),
      index: function (n) { return Object.prototype.hasOwnProperty.call(byName, n) ? byName[n] : null; },
      path: function (hexes) {
        return hexes.map(function (h) {
          return "M" + (h.x + first[0]).toFixed(2) + "," + (h.y + first[1]).toFixed(2) + outline;
        }).join("");
      }
    };
    if (grids) grids.set(board, found);
    return found;
  }

  var hexLayers = typeof WeakMap === "function" ? new WeakMap() : null;

  /** The map itself, built once per board and cloned at each redraw: one path per terrain kind
   * (every hex of that kind, outlined) and the hexes' names. */
  function hexLayer(board, grid) {
    var kept = hexLayers && hexLayers.get(board);
    if (kept) return kept.cloneNode(true);
    var terrain = board.terrain || {}, styles = board.terrain_styles || {}, base = board.terrain_default;
    var kinds = {};
    grid.list.forEach(function (h) {
      var kind = terrain[h.name] || base || "clear";
      (kinds[kind] = kinds[kind] || []).push(h);
    });
    var layer = svg("g", { "class": "hexes" }), names = svg("g", { "class": "hex-names", "aria-hidden": "true" });
    Object.keys(kinds).forEach(function (kind) {
      var style = styles[kind] || {}, hexes = kinds[kind];
      var listed = kind === base ? hexes.length + " hexes" : hexes.map(function (h) { return h.name; }).join(", ");
      layer.appendChild(svg("path", { "class": "terrain kind-" + kind, "data-terrain": kind, "data-hexes": hexes.length,
                                      d: grid.path(hexes), fill: style.fill || "#eeeeee", stroke: "#8a8a7a", "stroke-width": 0.6 },
                            title((style.name || kind) + (style.blocks ? " (blocks line of sight)" : "") + ": " + listed)));
    });
    grid.list.forEach(function (h) {
      names.appendChild(svg("text", { "class": "hex-name", x: h.x.toFixed(1), y: (h.y - HEX * 0.5).toFixed(1),
                                      "font-size": 6, "text-anchor": "middle" }, h.name));
    });
    layer.appendChild(names);
    if (hexLayers) hexLayers.set(board, layer);
    return layer.cloneNode(true);
  }

  /** n counters' size and places in a hex: a small grid round the hex's centre, under its name. */
  function hexCells(h, n) {
    var cols = Math.ceil(Math.sqrt(n)), rows = Math.ceil(n / cols);
    var cw = Math.min(1.4 * HEX / cols, 1.15 * HEX / rows / 0.64), ch = cw * 0.64, cells = [];
    var x0 = h.x - cols * cw / 2, y0 = h.y + HEX * 0.1 - rows * ch / 2;
    for (var k = 0; k < n; k++) cells.push([x0 + (k % cols) * cw + cw * 0.04, y0 + Math.floor(k / cols) * ch + ch * 0.04]);
    return { cw: cw * 0.92, ch: ch * 0.92, cells: cells };
  }

  function drawHexMap(board, grid, state, place, opts, colour, tally) {
    var id = "map-" + (++drawn), w = grid.width, h = grid.height;
    var root = svg("svg", { "class": "map map-hexes", viewBox: "0 0 " + w.toFixed(1) + " " + h.toFixed(1), role: "img",
                            "aria-labelledby": id + "-t", "data-map": "hexes", "data-hexes": grid.list.length,
                            preserveAspectRatio: "xMidYMid meet" });
    var here = Object.keys(place.byArea), counters = 0;
    here.forEach(function (hex) { counters += place.byArea[hex].length; });
    root.appendChild(svg("title", { id: id + "-t" }, "Hex map: " + grid.list.length + " hexes, " + counters + " counters"));
    root.appendChild(arrowDefs(id + "-arrow"));
    root.appendChild(svg("rect", { "class": "ground", width: w.toFixed(1), height: h.toFixed(1), fill: PAPER }));
    root.appendChild(hexLayer(board, grid));
    var highlight = opts.highlight || {}, moved = highlight.moved || {}, struck = highlight.hit || [], lit = {};
    Object.keys(moved).forEach(function (u) {
      [moved[u], (state.units[u] || {}).location].forEach(function (x) { if (grid.index(x)) lit[x] = grid.index(x); });
    });
    (highlight.areas || []).forEach(function (x) { if (grid.index(x)) lit[x] = grid.index(x); });
    if (Object.keys(lit).length) {
      root.appendChild(svg("path", { "class": "hex lit", d: grid.path(Object.keys(lit).map(function (k) { return lit[k]; })),
                                     fill: "none", stroke: "#c2185b", "stroke-width": 2.5 }));
    }
    var layerMoves = svg("g", { "class": "moves" }), layerCounters = svg("g", { "class": "counters" });
    Object.keys(moved).forEach(function (u) {
      var from = grid.index(moved[u]), to = grid.index((state.units[u] || {}).location);
      if (!from || !to || from === to) return;
      layerMoves.appendChild(svg("line", { "class": "move-arrow", "data-unit": u, x1: from.x, y1: from.y, x2: to.x, y2: to.y,
                                           stroke: "#c2185b", "stroke-width": 2, "stroke-dasharray": "6 3",
                                           "marker-end": "url(#" + id + "-arrow)" },
                                      title(unitName(board, u) + ": " + from.name + " → " + to.name)));
    });
    here.forEach(function (hex) {
      var units = place.byArea[hex], spot = hexCells(grid.index(hex), units.length);
      units.forEach(function (u, k) {
        var side = ((board.units || {})[u] || {}).side, cell = spot.cells[k];
        tally.counters++;
        var g = counter(board, state, u, cell[0], cell[1], spot.cw, spot.ch, colour[side] || ["#555", "#fff"],
                        place.aboard[u] || [], { moved: u in moved, hit: struck.indexOf(u) >= 0 });
        g.setAttribute("data-hex", hex);
        layerCounters.appendChild(g);
      });
    });
    root.appendChild(layerMoves);
    root.appendChild(layerCounters);
    return root;
  }

  /** A grid board: one hex map, its terrain's legend, the units by hex. */
  function drawGridBoard(container, board, state, opts) {
    state = Object.assign({}, state, { units: state.units || {} });
    var grid = hexGrid(board), colour = colours(board, state), place = placement(board, state);
    var status = statusPanel(board, state);
    if (status) container.appendChild(status);
    var tally = { counters: 0 }, figure = W.el("figure", { class: "map-figure" });
    figure.appendChild(drawHexMap(board, grid, state, place, opts, colour, tally));
    container.appendChild(figure);
    var styles = board.terrain_styles || {}, terrain = W.el("p", { class: "legend terrain-legend" });
    Object.keys(styles).forEach(function (kind) {
      var swatch = W.el("span", { class: "swatch", "aria-hidden": "true" });
      swatch.style.background = styles[kind].fill || "#eeeeee";  // through the CSSOM (CSP)
      terrain.appendChild(swatch);
      terrain.appendChild(document.createTextNode(" " + (styles[kind].name || kind) +
                                                  (styles[kind].blocks ? " (blocks line of sight)" : "") + "  "));
    });
    container.appendChild(terrain);
    container.appendChild(legendOf(colour, " · H = Hit marker · +N = " + aboardWord(board).legend));
    var units = unitSection(board, state, place, "Units by hex");
    if (units) container.appendChild(units);
    return { maps: 1, areas: 0, hexes: grid.list.length, counters: tally.counters };
  }

  /** Where a hex's centre is drawn ([x, y] in the map's viewBox), or null for a name not on the grid. */
  function hexCentre(board, name) {
    var h = board && board.grid ? hexGrid(board).index(name) : null;
    return h ? [h.x, h.y] : null;
  }

  /* A board of several maps, one per theatre (Solitaire Task Force: {theatres: {name: board},
   * theatre: [the path in the state to the chosen name], pieces: "groups"}): the chosen theatre's
   * board, none until the state names one; with pieces "groups", each group with a hex ({owner,
   * hex}) is a counter there, a contact's chit and intelligence in its text. The board drawn is kept per theatre, so its grid is worked out once. */
  var theatres = typeof WeakMap === "function" ? new WeakMap() : null;

  function theatreOf(board, state) {
    if (!board || !board.theatres) return { board: board, state: state };
    var name = (board.theatre || []).reduce(function (o, k) { return o && typeof o === "object" ? o[k] : undefined; }, state);
    var chosen = typeof name === "string" ? board.theatres[name] : null;
    if (!chosen) return { board: null, state: state, theatres: Object.keys(board.theatres) };
    if (board.pieces !== "groups") return { board: chosen, state: state };
    var drawn = theatres && theatres.get(chosen);
    if (!drawn) {
      drawn = Object.assign({}, chosen);
      if (theatres) theatres.set(chosen, drawn);
    }
    var units = {}, info = {}, groups = state.groups || {};
    Object.keys(groups).forEach(function (id) {
      var g = groups[id] || {};
      if (!g.hex) return;
      units[id] = { location: g.hex };
      info[id] = { name: id + (g.kind === "subron" ? " (subron)" : g.kind === "tf" ? " (task force)" : ""),
                   abbr: id, side: g.owner };
      // A GameSystem contact says what the Player knows of it: its chit and intelligence (STF 8.3-8.7).
      if (g.intel) info[id].type = (g.chit ? g.chit + " chit, " : "no chit, ") + g.intel;
    });
    // Each unit of the state (STF's ships, subs and squadrons, each naming its `group`) rides with
    // its group: listed under the group's hex (the counter's +N), else not on the map (none formed
    // yet, or off it); a sunk one eliminated.
    var ships = state.units || {};
    Object.keys(ships).forEach(function (uid) {
      var u = ships[uid];
      if (!u || typeof u !== "object" || units[uid]) return;
      var g = groups[u.group] || {};
      units[uid] = u.sunk ? { eliminated: true } : g.hex ? { aboard: u.group } : {};
      info[uid] = { name: [u["class"], u.name || uid].filter(Boolean).join(" "), side: g.owner,
                    type: u.hits ? u.hits + (u.hits === 1 ? " hit" : " hits") : undefined };
    });
    drawn.units = info;
    drawn.aboard = { word: "with", legend: "units in the group" };
    return { board: drawn, state: Object.assign({}, state, { units: units }) };
  }

  /** Draw the board into container; returns {maps, areas, counters}. */
  function draw(container, board, state, opts) {
    opts = opts || {};
    W.clear(container);
    state = state || {};
    var picked = theatreOf(board, state);
    board = picked.board;
    state = picked.state;
    if (board && board.grid) return drawGridBoard(container, board, state, opts);
    if (!board || !board.areas || !Object.keys(board.areas).length) {
      // A board of theatres before one is chosen (STF 1.1) has a map, not drawn yet.
      container.appendChild(W.el("p", { class: "hint no-map",
        text: picked.theatres ? "No map yet: it is drawn once the game's theatre is chosen (" +
                                picked.theatres.join(", ") + ")."
          : opts.noMap || "This game has no map: its story is in the log and the dice." }));
      return { maps: 0, areas: 0, counters: 0 };
    }
    state = Object.assign({}, state, { units: state.units || {} });
    var colour = colours(board, state), place = placement(board, state), all = maps(board), count = 0;
    var status = statusPanel(board, state);
    if (status) container.appendChild(status);
    Object.keys(all).forEach(function (name) {
      var figure = W.el("figure", { class: "map-figure" });
      var tally = { counters: 0 };
      figure.appendChild(drawMap(name, all[name], board, state, place, opts, colour, tally));
      container.appendChild(figure);
      count += tally.counters;  // drawn, not only placed
    });
    container.appendChild(legendOf(colour, " · ★ VP · ✈ airbase · ▲ mountains · ▣ entrenched · H = Hit marker · +N = " +
                                   aboardWord(board).legend));
    var units = unitSection(board, state, place, "Units by area");
    if (units) container.appendChild(units);
    return { maps: Object.keys(all).length, areas: Object.keys(board.areas).length, counters: count };
  }

  /** The sides' colours, then the marks' meanings. */
  function legendOf(colour, marks) {
    var legend = W.el("p", { class: "legend" });
    Object.keys(colour).forEach(function (side) {
      var swatch = W.el("span", { class: "swatch", "aria-hidden": "true" });
      swatch.style.background = colour[side][0];  // through the CSSOM: the pages' CSP allows no style attributes
      legend.appendChild(swatch);
      legend.appendChild(document.createTextNode(" " + side + "  "));
    });
    legend.appendChild(document.createTextNode(marks));
    return legend;
  }

  /** Units that moved (unit -> where from) or lost steps between two states; groups that
   * changed hex too (a board of theatres draws each group as a counter). */
  function changes(before, after) {
    var moved = {}, hit = [], a = (before && before.units) || {}, b = (after && after.units) || {};
    Object.keys(b).forEach(function (u) {
      var was = a[u] || {}, now = b[u] || {};
      if ((was.location || null) !== (now.location || null) && now.location) moved[u] = was.location || null;
      if ((was.steps !== undefined && now.steps !== undefined && now.steps < was.steps) || (now.eliminated && !was.eliminated)) hit.push(u);
    });
    var ga = (before && before.groups) || {}, gb = (after && after.groups) || {};
    Object.keys(gb).forEach(function (g) {
      var was = ga[g] || {}, now = gb[g] || {};
      if (now.hex && (was.hex || null) !== now.hex) moved[g] = was.hex || null;
    });
    return { moved: moved, hit: hit };
  }

  W.Board = { draw: draw, changes: changes, placement: placement, nameOf: nameOf, words: words, hexCentre: hexCentre };
})();
