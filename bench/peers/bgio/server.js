// boardgame.io's official server for the bench: node server.js PORT flatfile DIR | postgres URL
// Prints "listening PORT" once the Lobby API and the socket.io transport answer.
const { Server, FlatFile } = require('boardgame.io/server');
const { Dice } = require('./game');

const [port, kind, where] = process.argv.slice(2);
let db;
if (kind === 'flatfile') {
  db = new FlatFile({ dir: where, logging: false });
} else if (kind === 'postgres') {
  const { PostgresStore } = require('bgio-postgres');
  db = new PostgresStore(where, { logging: false });
} else {
  throw new Error(`unknown storage ${kind}: flatfile or postgres`);
}

const server = Server({ games: [Dice], db });
server.run({ port: Number(port) }, () => console.log(`listening ${port}`));
