// The bench's client for the peer, with boardgame.io's own client library (SocketIO transport).
//   node driver.js closed URL MATCHES CLIENTS WARMUP DURATION
//   node driver.js open URL MATCHES RATE WARMUP DURATION
// Creates and joins MATCHES two-player matches through the Lobby API, connects one Client per
// seat, prints "ready", then "window start" and "window end" as the measured window opens and
// closes, and finally one JSON line: moves in the window, their latencies (ms, from sending the
// move to the moving seat's client seeing the new state) and moves that found no answer.
// closed: CLIENTS loops, each owning its share of matches, one move at a time.
// open: moves sent at fixed spacing (1/RATE s) whatever the answers, each to the next match
// not waiting for an answer (a send with every match busy is counted as skipped).
const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { Dice } = require('./game');

const [mode, url, matchesArg, nArg, warmupArg, durationArg] = process.argv.slice(2);
const MATCHES = Number(matchesArg);
const WARMUP = Number(warmupArg) * 1000;
const DURATION = Number(durationArg) * 1000;
const now = () => Number(process.hrtime.bigint()) / 1e6;

async function post(path, body) {
  const res = await fetch(`${url}${path}`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

class Match {
  constructor(matchID, credentials) {
    this.id = matchID;
    this.busy = false;
    this.clients = ['0', '1'].map((playerID) => Client({
      game: Dice, matchID, playerID, credentials: credentials[playerID], debug: false,
      multiplayer: SocketIO({ server: url }),
    }));
    this.waiting = null; // [client index, stateID before the move, resolve]
    this.clients.forEach((client, i) => client.subscribe((state) => {
      if (state && this.waiting && this.waiting[0] === i && state._stateID > this.waiting[1]) {
        const resolve = this.waiting[2];
        this.waiting = null;
        resolve();
      }
    }));
  }

  start() { this.clients.forEach((c) => c.start()); }

  stop() { this.clients.forEach((c) => c.stop()); }

  async synced() {
    while (this.clients.some((c) => !c.getState())) await new Promise((r) => setTimeout(r, 5));
  }

  // One move by the seat whose turn it is; resolves when that seat's client sees the result.
  move() {
    const player = Number(this.clients[0].getState().ctx.currentPlayer);
    const client = this.clients[player];
    return new Promise((resolve) => {
      this.waiting = [player, client.getState()._stateID, resolve];
      client.moves.roll();
    });
  }
}

async function newMatch() {
  const { matchID } = await post('/games/dice/create', { numPlayers: 2 });
  const credentials = {};
  for (const playerID of ['0', '1']) {
    const joined = await post(`/games/dice/${matchID}/join`, { playerID, playerName: `p${playerID}` });
    credentials[playerID] = joined.playerCredentials;
  }
  const match = new Match(matchID, credentials);
  match.start();
  await match.synced();
  return match;
}

async function main() {
  const matches = [];
  for (let i = 0; i < MATCHES; i += 16) {
    matches.push(...await Promise.all(Array.from({ length: Math.min(16, MATCHES - i) }, newMatch)));
  }
  console.log('ready');
  const start = now();
  const window = [start + WARMUP, start + WARMUP + DURATION];
  const latencies = [];
  let unanswered = 0;
  let skipped = 0;
  const timed = async (match) => {
    const began = now();
    match.busy = true;
    await match.move();
    match.busy = false;
    const done = now();
    if (window[0] <= began && done <= window[1]) latencies.push(done - began);
  };
  const marks = (async () => {
    await new Promise((r) => setTimeout(r, window[0] - now()));
    console.log('window start');
    await new Promise((r) => setTimeout(r, window[1] - now()));
    console.log('window end');
  })();
  if (mode === 'closed') {
    const loops = Number(nArg);
    await Promise.all(Array.from({ length: loops }, async (_, i) => {
      const owned = matches.filter((_, k) => k % loops === i);
      for (let k = 0; now() < window[1]; k += 1) await timed(owned[k % owned.length]);
    }));
  } else {
    const spacing = 1000 / Number(nArg);
    const pending = [];
    let next = 0;
    for (let at = start; at < window[1]; at += spacing) {
      const wait = at - now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      let match = null;
      for (let tries = 0; tries < matches.length && match === null; tries += 1) {
        const candidate = matches[next];
        next = (next + 1) % matches.length;
        if (!candidate.busy) match = candidate;
      }
      if (match === null) { if (at >= window[0]) skipped += 1; continue; }
      // Latency from the scheduled send time: a late send (a busy client) counts against it.
      const scheduled = at;
      match.busy = true;
      pending.push(match.move().then(() => {
        match.busy = false;
        const done = now();
        if (window[0] <= scheduled && done <= window[1]) latencies.push(done - scheduled);
        else if (window[0] <= scheduled && scheduled < window[1]) unanswered += 1;
      }));
    }
    await Promise.race([Promise.all(pending), new Promise((r) => setTimeout(r, 5000))]);
  }
  await marks;
  matches.forEach((m) => m.stop());
  // A large line to a pipe is written asynchronously: exit once it is out.
  const line = `${JSON.stringify({ moves: latencies.length, latencies_ms: latencies, unanswered, skipped })}\n`;
  process.stdout.write(line, () => process.exit(0));
}

main().catch((err) => { console.error(err); process.exit(1); });
