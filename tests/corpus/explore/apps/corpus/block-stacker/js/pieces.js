// Tetromino definitions and a 7-bag randomiser.
const PIECES = {
  I: { color: '#89dceb', cells: [[0, 1], [1, 1], [2, 1], [3, 1]] },
  O: { color: '#f9e2af', cells: [[1, 0], [2, 0], [1, 1], [2, 1]] },
  T: { color: '#cba6f7', cells: [[1, 0], [0, 1], [1, 1], [2, 1]] },
  S: { color: '#a6e3a1', cells: [[1, 0], [2, 0], [0, 1], [1, 1]] },
  Z: { color: '#f38ba8', cells: [[0, 0], [1, 0], [1, 1], [2, 1]] },
  J: { color: '#89b4fa', cells: [[0, 0], [0, 1], [1, 1], [2, 1]] },
  L: { color: '#fab387', cells: [[2, 0], [0, 1], [1, 1], [2, 1]] }
};

function shuffle(list) {
  const a = list.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

function createBag() {
  let bag = [];
  return function nextType() {
    if (bag.length === 0) bag = shuffle(Object.keys(PIECES));
    return bag.pop();
  };
}

function makePiece(type) {
  const def = PIECES[type];
  return { type, color: def.color, cells: def.cells.map(([x, y]) => ({ x, y })), x: 3, y: 0 };
}

function rotateCells(cells, clockwise) {
  // rotate around the centre of a 4x4 box
  return cells.map(({ x, y }) => clockwise ? { x: 3 - y, y: x } : { x: y, y: 3 - x });
}
