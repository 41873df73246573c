// The peer's game: two players take turns; a move rolls two d6 with boardgame.io's server-side
// random API (client: false, so only the server runs it) and the turn passes to the other player.
const Dice = {
  name: 'dice',
  setup: () => ({ rolls: 0, last: [] }),
  moves: {
    roll: {
      move: ({ G, random }) => {
        G.last = random.D6(2);
        G.rolls += 1;
      },
      client: false,
    },
  },
  turn: { minMoves: 1, maxMoves: 1 },
};

module.exports = { Dice };
