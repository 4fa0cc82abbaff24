// Memory Match — flip two cards, find all the pairs.
const THEMES = {
  animals: ['🐶', '🐱', '🦊', '🐼', '🐸', '🦁', '🐵', '🐧', '🐙', '🦄'],
  food: ['🍕', '🍔', '🍣', '🍩', '🍎', '🌮', '🍪', '🍇', '🥑', '🍉'],
  space: ['🚀', '🌙', '⭐', '🪐', '☄️', '🛰️', '👽', '🌍', '🌞', '🔭']
};

const boardEl = document.getElementById('board');
const movesEl = document.getElementById('moves');
const timerEl = document.getElementById('timer');
const pairsEl = document.getElementById('pairs');
const totalPairsEl = document.getElementById('totalPairs');
const hintBtn = document.getElementById('hintBtn');
const winModal = document.getElementById('winModal');
const bestList = document.getElementById('bestList');

let cards = [];
let firstCard = null;
let secondCard = null;
let lockBoard = false;
let moves = 0;
let matchedPairs = 0;
let totalPairs = 8;
let seconds = 0;
let timerId = null;
let started = false;
let hintsLeft = 3;

function shuffle(array) {
  const copy = [...array];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

function formatTime(total) {
  const m = String(Math.floor(total / 60)).padStart(2, '0');
  const s = String(total % 60).padStart(2, '0');
  return `${m}:${s}`;
}

function startTimer() {
  if (timerId) return;
  timerId = setInterval(() => {
    seconds++;
    timerEl.textContent = formatTime(seconds);
  }, 1000);
}

function stopTimer() {
  clearInterval(timerId);
  timerId = null;
}

function createCard(symbol, index) {
  const button = document.createElement('button');
  button.className = 'card';
  button.dataset.symbol = symbol;
  button.dataset.index = index;
  button.setAttribute('aria-label', 'Hidden card');
  button.innerHTML = `
    <div class="card-inner">
      <div class="card-face card-front">?</div>
      <div class="card-face card-back">${symbol}</div>
    </div>`;
  button.addEventListener('click', () => flipCard(button));
  return button;
}

function newGame() {
  stopTimer();
  totalPairs = parseInt(document.getElementById('sizeSelect').value, 10);
  const theme = document.getElementById('themeSelect').value;
  const symbols = THEMES[theme].slice(0, totalPairs);
  const deck = shuffle([...symbols, ...symbols]);
  boardEl.innerHTML = '';
  boardEl.style.gridTemplateColumns = `repeat(${totalPairs === 6 ? 4 : totalPairs === 8 ? 4 : 5}, 90px)`;
  cards = deck.map((symbol, i) => createCard(symbol, i));
  cards.forEach(card => boardEl.appendChild(card));
  moves = 0;
  matchedPairs = 0;
  seconds = 0;
  started = false;
  hintsLeft = 3;
  firstCard = secondCard = null;
  lockBoard = false;
  movesEl.textContent = '0';
  pairsEl.textContent = '0';
  totalPairsEl.textContent = totalPairs;
  timerEl.textContent = '00:00';
  updateHintButton();
  winModal.classList.add('hidden');
}

function flipCard(card) {
  if (lockBoard || card === firstCard || card.classList.contains('matched')) return;
  if (!started) {
    started = true;
    startTimer();
    updateHintButton();
  }
  card.classList.add('flipped');
  card.setAttribute('aria-label', card.dataset.symbol);
  if (!firstCard) {
    firstCard = card;
    return;
  }
  secondCard = card;
  moves++;
  movesEl.textContent = moves;
  checkForMatch();
}

function checkForMatch() {
  const isMatch = firstCard.dataset.symbol === secondCard.dataset.symbol;
  if (isMatch) {
    disableCards();
  } else {
    unflipCards();
  }
}

function disableCards() {
  firstCard.classList.add('matched');
  secondCard.classList.add('matched');
  matchedPairs++;
  pairsEl.textContent = matchedPairs;
  resetTurn();
  if (matchedPairs === totalPairs) {
    setTimeout(showWin, 500);
  }
}

function unflipCards() {
  lockBoard = true;
  setTimeout(() => {
    firstCard.classList.remove('flipped');
    secondCard.classList.remove('flipped');
    firstCard.setAttribute('aria-label', 'Hidden card');
    secondCard.setAttribute('aria-label', 'Hidden card');
    resetTurn();
  }, 800);
}

function resetTurn() {
  firstCard = null;
  secondCard = null;
  lockBoard = false;
}

function updateHintButton() {
  hintBtn.textContent = `Hint (${hintsLeft})`;
  hintBtn.disabled = !started || hintsLeft === 0;
}

function showHint() {
  if (hintsLeft === 0 || lockBoard) return;
  const hidden = cards.filter(c => !c.classList.contains('matched') && !c.classList.contains('flipped'));
  if (hidden.length < 2) return;
  const target = hidden[0].dataset.symbol;
  const pair = hidden.filter(c => c.dataset.symbol === target);
  pair.forEach(c => c.classList.add('hint'));
  setTimeout(() => pair.forEach(c => c.classList.remove('hint')), 1200);
  hintsLeft--;
  moves += 2; // hints cost moves
  movesEl.textContent = moves;
  updateHintButton();
}

function showWin() {
  stopTimer();
  document.getElementById('winSummary').textContent =
    `You found all ${totalPairs} pairs in ${moves} moves and ${formatTime(seconds)}.`;
  winModal.classList.remove('hidden');
  document.getElementById('playerName').focus();
}

// ----- Leaderboard -----
function loadScores() {
  try {
    return JSON.parse(localStorage.getItem('memoryScores')) || [];
  } catch (err) {
    return [];
  }
}

function saveScore(name) {
  const scores = loadScores();
  scores.push({ name, seconds, moves, pairs: totalPairs, date: new Date().toISOString() });
  scores.sort((a, b) => a.seconds - b.seconds || a.moves - b.moves);
  localStorage.setItem('memoryScores', JSON.stringify(scores.slice(0, 10)));
  renderScores();
}

function renderScores() {
  const scores = loadScores();
  bestList.innerHTML = '';
  if (scores.length === 0) {
    bestList.innerHTML = '<li class="empty">No games finished yet</li>';
    return;
  }
  scores.forEach(s => {
    const li = document.createElement('li');
    li.textContent = `${s.name} — ${formatTime(s.seconds)} (${s.moves} moves, ${s.pairs} pairs)`;
    bestList.appendChild(li);
  });
}

document.getElementById('nameForm').addEventListener('submit', (e) => {
  e.preventDefault();
  const name = document.getElementById('playerName').value.trim();
  if (!name) return;
  saveScore(name);
  winModal.classList.add('hidden');
});

document.getElementById('clearScores').addEventListener('click', () => {
  if (confirm('Clear all best times?')) {
    localStorage.removeItem('memoryScores');
    renderScores();
  }
});

document.getElementById('newGameBtn').addEventListener('click', newGame);
document.getElementById('playAgainBtn').addEventListener('click', newGame);
document.getElementById('sizeSelect').addEventListener('change', newGame);
document.getElementById('themeSelect').addEventListener('change', newGame);
hintBtn.addEventListener('click', showHint);
document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && !winModal.classList.contains('hidden')) {
    winModal.classList.add('hidden');
  }
});

renderScores();
newGame();
