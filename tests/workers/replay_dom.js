// Runs the replay page's player script against a minimal stand-in DOM (node, no network) and
// prints what the page shows after a sequence of button presses. Used by test_replay.py.
"use strict";
const fs = require("fs");
const html = fs.readFileSync(process.argv[2], "utf8");
const presses = JSON.parse(process.argv[3]);
const data = html.match(/<script type="application\/json" id="replay">([\s\S]*?)<\/script>/)[1];
const player = html.match(/<script>\n([\s\S]*?)<\/script>/)[1];
class El {
  constructor(tag) { this.tag = tag; this.children = []; this.attrs = {}; this.textContent = ""; this.style = {}; this.className = ""; }
  set innerHTML(v) { this.children = []; this._html = v; }
  get innerHTML() { return this._html || ""; }
  appendChild(c) { this.children.push(c); return c; }
  setAttribute(k, v) { this.attrs[k] = String(v); }
  getAttribute(k) { return this.attrs[k] === undefined ? null : this.attrs[k]; }
  scrollIntoView() {}
}
const ids = {};
const byId = (id) => ids[id] || (ids[id] = new El("div"));
byId("replay").textContent = data;
const cursor = byId("cursor");
Object.assign(cursor.attrs, {"data-left": "50", "data-width": "570", "data-xmax": "10"});
const keys = [];
global.document = {
  getElementById: byId,
  createElement: (t) => new El(t),
  createElementNS: (ns, t) => new El(t),
  addEventListener: (type, fn) => keys.push(fn),
};
eval(player);
const seen = [];
const snap = () => seen.push({pos: byId("pos").textContent, where: byId("where").textContent,
  line: byId("line").textContent, dice: byId("dice").children.length, jump: byId("jump").value,
  cursor: cursor.getAttribute("x1"), marks: byId("marks").children.map((c) => c.textContent)});
snap();
for (const p of presses) {
  if (p.startsWith("key:")) keys.forEach((fn) => fn({key: p.slice(4)}));
  else if (p.startsWith("jump:")) { byId("jump").value = p.slice(5); byId("jump").oninput.call(byId("jump")); }
  else byId(p).onclick();
  snap();
}
process.stdout.write(JSON.stringify(seen));
