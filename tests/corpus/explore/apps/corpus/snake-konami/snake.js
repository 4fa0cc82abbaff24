// ===== Neon Snake =====
// Classic snake with levels, a best score in localStorage and a secret cheat code.

const canvas = document.getElementById('game');
const ctx = canvas.getContext('2d');
const scoreEl = document.getElementById('score');
const bestEl = document.getElementById('best');
const levelEl = document.getElementById('level');
const startOverlay = document.getElementById('startOverlay');
const pauseOverlay = document.getElementById('pauseOverlay');
const gameOverOverlay = document.getElementById('gameOverOverlay');
const finalScoreEl = document.getElementById('finalScore');
const newRecordEl = document.getElementById('newRecord');
const toastEl = document.getElementById('toast');
const wrapCheckbox = document.getElementById('wrapWalls');

const GRID = 24;
const CELLS = canvas.width / GRID;
const BASE_SPEED = 140; // ms per move
const KONAMI = ['ArrowUp', 'ArrowUp', 'ArrowDown', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'ArrowLeft', 'ArrowRight', 'b', 'a'];

let snake = [];
let direction = { x: 1, y: 0 };
let nextDirection = { x: 1, y: 0 };
let food = null;
let bonus = null;
let score = 0;
let level = 1;
let best = loadBest();
let running = false;
let paused = false;
let lastMove = 0;
let rainbow = false;
let konamiIndex = 0;
let hue = 0;
let wrapWalls = false;
let toastTimer = null;

bestEl.textContent = best;

function loadBest() {
  try {
    return parseInt(localStorage.getItem('neonSnakeBest') || '0', 10) || 0;
  } catch (e) {
    return 0;
  }
}

function saveBest(value) {
  try {
    localStorage.setItem('neonSnakeBest', String(value));
  } catch (e) {
    console.warn('Could not save best score', e);
  }
}

function resetGame() {
  const mid = Math.floor(CELLS / 2);
  snake = [
    { x: mid, y: mid },
    { x: mid - 1, y: mid },
    { x: mid - 2, y: mid }
  ];
  direction = { x: 1, y: 0 };
  nextDirection = { x: 1, y: 0 };
  score = 0;
  level = 1;
  bonus = null;
  updateHud();
  placeFood();
}

function startGame() {
  resetGame();
  wrapWalls = wrapCheckbox.checked;
  running = true;
  paused = false;
  startOverlay.classList.add('hidden');
  gameOverOverlay.classList.add('hidden');
  pauseOverlay.classList.add('hidden');
  lastMove = performance.now();
  requestAnimationFrame(loop);
}

function randomCell() {
  return {
    x: Math.floor(Math.random() * CELLS),
    y: Math.floor(Math.random() * CELLS)
  };
}

function isOnSnake(cell) {
  return snake.some(part => part.x === cell.x && part.y === cell.y);
}

function placeFood() {
  let cell = randomCell();
  while (isOnSnake(cell)) {
    cell = randomCell();
  }
  food = cell;
}

function maybeSpawnBonus() {
  if (bonus || Math.random() > 0.25) return;
  let cell = randomCell();
  while (isOnSnake(cell) || (food && cell.x === food.x && cell.y === food.y)) {
    cell = randomCell();
  }
  bonus = { ...cell, expires: performance.now() + 5000 };
}

function speed() {
  return Math.max(60, BASE_SPEED - (level - 1) * 12);
}

function updateHud() {
  scoreEl.textContent = score;
  levelEl.textContent = level;
  bestEl.textContent = best;
}

function hitsWall(head) {
  return head.x < 0 || head.y < 0 || head.x >= CELLS || head.y >= CELLS;
}

function wrap(head) {
  return {
    x: (head.x + CELLS) % CELLS,
    y: (head.y + CELLS) % CELLS
  };
}

function step() {
  direction = nextDirection;
  let head = { x: snake[0].x + direction.x, y: snake[0].y + direction.y };

  if (hitsWall(head)) {
    if (wrapWalls) {
      head = wrap(head);
    } else {
      gameOver();
      return;
    }
  }
  if (isOnSnake(head)) {
    gameOver();
    return;
  }

  snake.unshift(head);

  if (head.x === food.x && head.y === food.y) {
    eatFood();
  } else if (bonus && head.x === bonus.x && head.y === bonus.y) {
    eatBonus();
  } else {
    snake.pop();
  }
}

function eatFood() {
  score += rainbow ? 20 : 10;
  if (score >= level * 50) {
    levelUp();
  }
  updateHud();
  placeFood();
  maybeSpawnBonus();
}

function eatBonus() {
  score += 50;
  bonus = null;
  showToast('+50 bonus!');
  updateHud();
}

function levelUp() {
  level += 1;
  showToast('Level ' + level + '!');
}

function gameOver() {
  running = false;
  finalScoreEl.textContent = score;
  if (score > best) {
    best = score;
    saveBest(best);
    newRecordEl.classList.remove('hidden');
  } else {
    newRecordEl.classList.add('hidden');
  }
  updateHud();
  gameOverOverlay.classList.remove('hidden');
}

function togglePause() {
  if (!running) return;
  paused = !paused;
  pauseOverlay.classList.toggle('hidden', !paused);
  if (!paused) {
    lastMove = performance.now();
    requestAnimationFrame(loop);
  }
}

function loop(now) {
  if (!running || paused) return;
  if (bonus && now > bonus.expires) {
    bonus = null;
  }
  if (now - lastMove >= speed()) {
    lastMove = now;
    step();
  }
  draw();
  if (running) requestAnimationFrame(loop);
}

// ===== Drawing =====
function drawGrid() {
  ctx.strokeStyle = 'rgba(57, 255, 20, 0.05)';
  for (let i = 0; i <= CELLS; i++) {
    ctx.beginPath();
    ctx.moveTo(i * GRID, 0);
    ctx.lineTo(i * GRID, canvas.height);
    ctx.stroke();
    ctx.beginPath();
    ctx.moveTo(0, i * GRID);
    ctx.lineTo(canvas.width, i * GRID);
    ctx.stroke();
  }
}

function segmentColor(index) {
  if (rainbow) {
    return 'hsl(' + ((hue + index * 18) % 360) + ', 100%, 55%)';
  }
  return index === 0 ? '#a3ff8f' : '#39ff14';
}

function drawSnake() {
  snake.forEach((part, i) => {
    ctx.fillStyle = segmentColor(i);
    ctx.fillRect(part.x * GRID + 1, part.y * GRID + 1, GRID - 2, GRID - 2);
  });
  if (rainbow) hue = (hue + 4) % 360;
}

function drawFood() {
  ctx.fillStyle = '#ff3860';
  ctx.beginPath();
  ctx.arc(food.x * GRID + GRID / 2, food.y * GRID + GRID / 2, GRID / 2 - 3, 0, Math.PI * 2);
  ctx.fill();
  if (bonus) {
    ctx.fillStyle = '#ffd700';
    ctx.fillRect(bonus.x * GRID + 4, bonus.y * GRID + 4, GRID - 8, GRID - 8);
  }
}

function draw() {
  ctx.fillStyle = '#111827';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  drawGrid();
  drawFood();
  drawSnake();
}

// ===== Input =====
function setDirection(x, y) {
  // Do not allow reversing into yourself
  if (direction.x === -x && direction.y === -y) return;
  nextDirection = { x, y };
}

function checkKonami(key) {
  const expected = KONAMI[konamiIndex];
  if (key === expected || key.toLowerCase() === expected) {
    konamiIndex += 1;
    if (konamiIndex === KONAMI.length) {
      konamiIndex = 0;
      activateRainbow();
    }
  } else {
    konamiIndex = key === KONAMI[0] ? 1 : 0;
  }
}

function activateRainbow() {
  rainbow = !rainbow;
  showToast(rainbow ? '🌈 Rainbow mode: double points!' : 'Rainbow mode off');
}

function showToast(message) {
  toastEl.textContent = message;
  toastEl.classList.remove('hidden');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => toastEl.classList.add('hidden'), 1800);
}

document.addEventListener('keydown', (e) => {
  checkKonami(e.key);
  switch (e.key) {
    case 'ArrowUp':
    case 'w':
    case 'W':
      setDirection(0, -1);
      e.preventDefault();
      break;
    case 'ArrowDown':
    case 's':
    case 'S':
      setDirection(0, 1);
      e.preventDefault();
      break;
    case 'ArrowLeft':
    case 'a':
    case 'A':
      setDirection(-1, 0);
      e.preventDefault();
      break;
    case 'ArrowRight':
    case 'd':
    case 'D':
      setDirection(1, 0);
      e.preventDefault();
      break;
    case ' ':
      if (!running) startGame();
      e.preventDefault();
      break;
    case 'p':
    case 'P':
      togglePause();
      break;
    default:
      break;
  }
});

document.getElementById('startBtn').addEventListener('click', startGame);
document.getElementById('restartBtn').addEventListener('click', startGame);

// First frame so the board is not empty before starting
resetGame();
draw();
