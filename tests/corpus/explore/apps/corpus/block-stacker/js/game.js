(function () {
  'use strict';

  const COLS = 10;
  const ROWS = 20;
  const SIZE = 30;
  const LINE_POINTS = [0, 100, 300, 500, 800];

  const board = document.getElementById('board').getContext('2d');
  const nextCtx = document.getElementById('next').getContext('2d');
  const holdCtx = document.getElementById('hold').getContext('2d');
  const message = document.getElementById('message');
  const messageText = document.getElementById('messageText');
  const ghostToggle = document.getElementById('ghostToggle');

  const nextType = createBag();
  let grid = emptyGrid();
  let current = null;
  let upcoming = null;
  let held = null;
  let canHold = true;
  let score = 0;
  let lines = 0;
  let level = 1;
  let dropTimer = 0;
  let lastTime = 0;
  let status = 'idle'; // idle | running | paused | over
  let softDrop = false;

  function emptyGrid() {
    return Array.from({ length: ROWS }, () => Array(COLS).fill(null));
  }

  function cellsOf(piece) {
    return piece.cells.map(c => ({ x: c.x + piece.x, y: c.y + piece.y }));
  }

  function fits(piece) {
    return cellsOf(piece).every(({ x, y }) =>
      x >= 0 && x < COLS && y < ROWS && (y < 0 || grid[y][x] === null));
  }

  function spawn() {
    current = upcoming || makePiece(nextType());
    upcoming = makePiece(nextType());
    canHold = true;
    if (!fits(current)) {
      gameOver();
    }
    drawPreview(nextCtx, upcoming);
  }

  function start() {
    grid = emptyGrid();
    score = 0; lines = 0; level = 1;
    held = null;
    upcoming = null;
    holdCtx.clearRect(0, 0, 100, 100);
    spawn();
    status = 'running';
    message.classList.add('hidden');
    updateStats();
    lastTime = performance.now();
    requestAnimationFrame(frame);
  }

  function togglePause() {
    if (status === 'running') {
      status = 'paused';
      messageText.textContent = 'Paused — press P to continue';
      message.classList.remove('hidden');
    } else if (status === 'paused') {
      status = 'running';
      message.classList.add('hidden');
      lastTime = performance.now();
      requestAnimationFrame(frame);
    }
  }

  function gameOver() {
    status = 'over';
    messageText.innerHTML = 'Game over — score <b>' + score + '</b><br>Press Enter to play again';
    message.classList.remove('hidden');
  }

  function move(dx) {
    const moved = { ...current, x: current.x + dx };
    if (fits(moved)) current = moved;
  }

  function rotate(clockwise) {
    const rotated = { ...current, cells: rotateCells(current.cells, clockwise) };
    // simple wall kicks: try in place, then one left, one right
    for (const kick of [0, -1, 1, -2, 2]) {
      const candidate = { ...rotated, x: rotated.x + kick };
      if (fits(candidate)) {
        current = candidate;
        return;
      }
    }
  }

  function lock() {
    cellsOf(current).forEach(({ x, y }) => {
      if (y >= 0) grid[y][x] = current.color;
    });
    clearLines();
    spawn();
  }

  function stepDown() {
    const moved = { ...current, y: current.y + 1 };
    if (fits(moved)) {
      current = moved;
      return true;
    }
    lock();
    return false;
  }

  function hardDrop() {
    let distance = 0;
    while (status === 'running' && stepDown()) distance++;
    score += distance * 2;
    updateStats();
  }

  function holdPiece() {
    if (!canHold) return;
    const type = current.type;
    if (held) {
      current = makePiece(held);
    } else {
      current = upcoming;
      upcoming = makePiece(nextType());
      drawPreview(nextCtx, upcoming);
    }
    held = type;
    canHold = false;
    drawPreview(holdCtx, makePiece(held));
  }

  function clearLines() {
    let cleared = 0;
    for (let y = ROWS - 1; y >= 0; y--) {
      if (grid[y].every(cell => cell !== null)) {
        grid.splice(y, 1);
        grid.unshift(Array(COLS).fill(null));
        cleared++;
        y++;
      }
    }
    if (cleared > 0) {
      lines += cleared;
      score += LINE_POINTS[cleared] * level;
      const newLevel = Math.floor(lines / 10) + 1;
      if (newLevel !== level) {
        level = newLevel;
      }
      updateStats();
    }
  }

  function interval() {
    const base = Math.max(80, 800 - (level - 1) * 70);
    return softDrop ? Math.min(base, 50) : base;
  }

  function updateStats() {
    document.getElementById('score').textContent = score;
    document.getElementById('lines').textContent = lines;
    document.getElementById('level').textContent = level;
  }

  function drawCell(ctx, x, y, color, alpha) {
    ctx.globalAlpha = alpha || 1;
    ctx.fillStyle = color;
    ctx.fillRect(x * SIZE + 1, y * SIZE + 1, SIZE - 2, SIZE - 2);
    ctx.globalAlpha = 1;
  }

  function ghostOf(piece) {
    let ghost = { ...piece };
    while (fits({ ...ghost, y: ghost.y + 1 })) ghost = { ...ghost, y: ghost.y + 1 };
    return ghost;
  }

  function drawPreview(ctx, piece) {
    ctx.clearRect(0, 0, 100, 100);
    piece.cells.forEach(({ x, y }) => {
      ctx.fillStyle = piece.color;
      ctx.fillRect(x * 22 + 6, y * 22 + 20, 20, 20);
    });
  }

  function draw() {
    board.clearRect(0, 0, COLS * SIZE, ROWS * SIZE);
    grid.forEach((row, y) => row.forEach((color, x) => { if (color) drawCell(board, x, y, color); }));
    if (!current) return;
    if (ghostToggle.checked) {
      cellsOf(ghostOf(current)).forEach(({ x, y }) => drawCell(board, x, y, current.color, 0.25));
    }
    cellsOf(current).forEach(({ x, y }) => { if (y >= 0) drawCell(board, x, y, current.color); });
  }

  function frame(time) {
    if (status !== 'running') { draw(); return; }
    dropTimer += time - lastTime;
    lastTime = time;
    if (dropTimer > interval()) {
      dropTimer = 0;
      stepDown();
      if (softDrop) { score += 1; updateStats(); }
    }
    draw();
    requestAnimationFrame(frame);
  }

  document.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && status !== 'running' && status !== 'paused') { start(); return; }
    if (event.key === 'p' || event.key === 'P') { togglePause(); return; }
    if (status !== 'running') return;
    switch (event.key) {
      case 'ArrowLeft': move(-1); break;
      case 'ArrowRight': move(1); break;
      case 'ArrowDown': softDrop = true; break;
      case 'ArrowUp': case 'x': case 'X': rotate(true); break;
      case 'z': case 'Z': rotate(false); break;
      case ' ': hardDrop(); break;
      case 'c': case 'C': holdPiece(); break;
      default: return;
    }
    event.preventDefault();
    draw();
  });

  document.addEventListener('keyup', (event) => {
    if (event.key === 'ArrowDown') softDrop = false;
  });

  document.getElementById('startButton').addEventListener('click', () => {
    if (status === 'paused') togglePause(); else start();
  });
  ghostToggle.addEventListener('change', draw);

  draw();
})();
