// Runs the offline replay page's scripts (common.js, board.js and replay.js, the live pages' own,
// as inlined in the page) in node against a small stand-in DOM, no network, and prints what the
// page shows after a sequence of presses (and the states it rebuilt): the step, the dice, the VP
// cursor, the address, the history and the map board.js drew (areas, counters with their
// abbreviation, steps and Hit marker, units aboard, highlights). Used by tests/workers/test_replay.py;
// tests/browser/test_offline_replay.py does the same in Chromium.
"use strict";
const fs = require("fs");
const html = fs.readFileSync(process.argv[2], "utf8");
const presses = JSON.parse(process.argv[3]);
const script = (id) => {
  const m = html.match(new RegExp('<script[^>]* id="' + id + '">([\\s\\S]*?)</script>'));
  if (!m) throw new Error("no script " + id);
  return m[1];
};

class Node_ {
  constructor(tag) {
    this.tagName = tag.toUpperCase(); this.childNodes = []; this.attrs = {}; this.listeners = {};
    this.style = {}; this.className = ""; this.parentNode = null; this.dataset = {};
  }
  get classList() {
    const node = this, has = (c) => node.cls.includes(c);
    return {
      contains: has,
      add: (c) => { if (!has(c)) node.className = (node.className + " " + c).trim(); },
      remove: (c) => { node.className = node.className.split(/\s+/).filter((x) => x && x !== c).join(" "); },
    };
  }
  get firstChild() { return this.childNodes[0] || null; }
  get lastChild() { return this.childNodes[this.childNodes.length - 1] || null; }
  get children() { return this.childNodes.filter((c) => !(c instanceof Text_)); }
  appendChild(c) { c.parentNode = this; this.childNodes.push(c); return c; }
  removeChild(c) { this.childNodes.splice(this.childNodes.indexOf(c), 1); c.parentNode = null; return c; }
  get textContent() { return this.childNodes.map((c) => c.textContent).join(""); }
  set textContent(v) { this.childNodes = []; if (v !== "") this.appendChild(new Text_(String(v))); }
  setAttribute(k, v) { this.attrs[k] = String(v); }
  getAttribute(k) { return this.attrs[k] === undefined ? null : this.attrs[k]; }
  removeAttribute(k) { delete this.attrs[k]; }
  addEventListener(type, fn) { (this.listeners[type] = this.listeners[type] || []).push(fn); }
  dispatch(type, event) { (this.listeners[type] || []).forEach((fn) => fn.call(this, event || {})); }
  get cls() { return ((this.attrs["class"] || "") + " " + this.className).split(/\s+/).filter(Boolean); }
  all(test, out = []) {
    this.children.forEach((c) => { if (test(c)) out.push(c); c.all(test, out); });
    return out;
  }
}
class Text_ { constructor(t) { this.textContent = t; } }

const ids = {};
const byId = (id) => ids[id] || (ids[id] = new Node_("div"));
byId("replay").textContent = script("replay");
byId("board-data").textContent = script("board-data");
// The VP chart (SVG text in the replay's JSON), "parsed": its cursor line with the attributes
// replay.js positions it by; null while no chart was inserted.
let cursor = null;
global.DOMParser = class {
  parseFromString(svg) {
    const svgNode = new Node_("svg"), line = /<line[^>]*id="cursor"[^>]*>/.exec(svg);
    if (line) {
      cursor = ids.cursor = svgNode.appendChild(new Node_("line"));
      for (const [, k, v] of line[0].matchAll(/([\w-]+)="([^"]*)"/g)) cursor.setAttribute(k, v);
    }
    return { documentElement: svgNode };
  }
};
const keys = [];
global.window = global;
global.location = { hash: "" };  // the address: replay.js keeps the position in it (#seq=N)
global.history = { replaceState: (state, title, url) => { global.location.hash = url; } };
global.addEventListener = () => {};
global.document = {
  body: new Node_("body"),
  getElementById: (id) => (id === "cursor" ? cursor : byId(id)),
  createElement: (t) => new Node_(t),
  createElementNS: (ns, t) => new Node_(t),
  createTextNode: (t) => new Text_(t),
  importNode: (node) => node,
  addEventListener: (type, fn) => { if (type === "keydown") keys.push(fn); },
};
for (const id of ["common-js", "board-js", "replay-js"]) (0, eval)(script(id));

function mapSeen() {
  const board = byId("board");
  const areas = board.all((n) => n.tagName === "POLYGON" && n.cls.includes("area"));
  const counters = board.all((n) => n.tagName === "G" && n.getAttribute("data-unit") !== null);
  const hint = board.all((n) => n.cls.includes("no-map"));
  return {
    maps: board.all((n) => n.tagName === "SVG").map((n) => n.getAttribute("data-map")),
    areas: areas.map((n) => n.getAttribute("data-area")),
    lit: areas.filter((n) => n.cls.includes("lit")).map((n) => n.getAttribute("data-area")),
    counters: counters.map((g) => ({
      unit: g.getAttribute("data-unit"), steps: +g.getAttribute("data-steps"),
      abbr: g.all((n) => n.cls.includes("abbr"))[0].textContent,
      hit: g.all((n) => n.cls.includes("hit-marker")).length > 0,
      moved: g.cls.includes("moved"),
      aboard: (g.all((n) => n.cls.includes("aboard"))[0] || { textContent: "" }).textContent,
    })),
    arrows: board.all((n) => n.cls.includes("move-arrow")).map((n) => n.getAttribute("data-unit")),
    noMap: hint.length ? hint[0].textContent : null,
  };
}

const historyRows = () => byId("history").all((n) => n.tagName === "LI" && n.getAttribute("data-seq") !== null);
const seen = [];
const snap = () => seen.push({
  pos: byId("pos").textContent, where: byId("where").textContent, line: byId("line").textContent,
  marks: byId("line").all((n) => n.cls.includes("mark")).map((n) => n.textContent),
  dice: byId("dice").all((n) => n.cls.includes("roll")).length,
  faces: byId("dice").all((n) => n.cls.includes("die")).map((n) => n.textContent),
  scrub: +byId("scrub").value, cursor: cursor && cursor.getAttribute("x1"), hash: location.hash,
  current: historyRows().filter((li) => li.cls.includes("current")).map((li) => +li.getAttribute("value")),
  map: mapSeen(),
});
snap();
for (const p of presses) {
  if (p.startsWith("key:")) {
    const [key, shift] = p.slice(4).split("+");
    keys.forEach((fn) => fn({ key, shiftKey: shift === "shift", target: document.body, preventDefault() {} }));
  } else if (p.startsWith("jump:")) { byId("scrub").value = p.slice(5); byId("scrub").dispatch("input"); }
  else if (p.startsWith("log:")) historyRows()[+p.slice(4)].children[0].dispatch("click");
  else byId(p).dispatch("click");
  snap();
}
// what the page shows after each press, and every state as replay.js rebuilt it from the deltas
process.stdout.write(JSON.stringify({ seen, states: window.Warlog.replayData.states }));
