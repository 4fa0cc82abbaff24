// TypeRacer Lite — measures words per minute over a fixed time.
const WORDS = ('the quick brown fox jumps over lazy dog while people write code every day and night ' +
  'keyboard practice makes perfect speed comes with time focus on accuracy first then go faster ' +
  'small steps lead to big results keep calm and type on').split(' ');
const PUNCT = [',', '.', '!', '?', ';'];

const textEl = document.getElementById('text');
const inputEl = document.getElementById('input');
const timeEl = document.getElementById('time');
const wpmEl = document.getElementById('wpm');
const accEl = document.getElementById('accuracy');
const resultsEl = document.getElementById('results');
const historyEl = document.getElementById('history');

let duration = 30;
let timeLeft = 30;
let timer = null;
let startedAt = null;
let target = '';
let typedChars = 0;
let errors = 0;
let finished = false;
let tabPressed = false;

function pickWords(count) {
  const withPunct = document.getElementById('punctuation').checked;
  const withNumbers = document.getElementById('numbers').checked;
  const words = [];
  for (let i = 0; i < count; i++) {
    let w = WORDS[Math.floor(Math.random() * WORDS.length)];
    if (withNumbers && Math.random() < 0.15) w = String(Math.floor(Math.random() * 1000));
    if (withPunct && Math.random() < 0.2) w += PUNCT[Math.floor(Math.random() * PUNCT.length)];
    if (withPunct && i === 0) w = w[0].toUpperCase() + w.slice(1);
    words.push(w);
  }
  return words.join(' ');
}

function renderText() {
  const typed = inputEl.value;
  let html = '';
  for (let i = 0; i < target.length; i++) {
    let cls = '';
    if (i < typed.length) cls = typed[i] === target[i] ? 'correct' : 'incorrect';
    else if (i === typed.length) cls = 'current';
    const ch = target[i] === ' ' ? '&nbsp;' : target[i];
    html += cls ? `<span class="${cls}">${ch}</span>` : ch;
  }
  textEl.innerHTML = html;
}

function reset(newText = true) {
  clearInterval(timer);
  timer = null;
  startedAt = null;
  timeLeft = duration;
  typedChars = 0;
  errors = 0;
  finished = false;
  if (newText) target = pickWords(60);
  inputEl.value = '';
  inputEl.disabled = false;
  timeEl.textContent = duration;
  wpmEl.textContent = '0';
  accEl.textContent = '100';
  resultsEl.classList.remove('show');
  renderText();
  inputEl.focus();
}

function startTimer() {
  startedAt = Date.now();
  timer = setInterval(tick, 1000);
}

function tick() {
  timeLeft--;
  timeEl.textContent = timeLeft;
  updateLiveStats();
  if (timeLeft <= 0) finish();
}

function correctChars() {
  const typed = inputEl.value;
  let ok = 0;
  for (let i = 0; i < typed.length && i < target.length; i++) {
    if (typed[i] === target[i]) ok++;
  }
  return ok;
}

function computeWpm() {
  const minutes = startedAt ? Math.max((Date.now() - startedAt) / 60000, 1 / 60) : 1;
  return Math.round(correctChars() / 5 / minutes);
}

function computeAccuracy() {
  if (typedChars === 0) return 100;
  return Math.max(0, Math.round(((typedChars - errors) / typedChars) * 100));
}

function updateLiveStats() {
  wpmEl.textContent = computeWpm();
  accEl.textContent = computeAccuracy();
}

function verdictFor(wpm) {
  if (wpm >= 80) return 'Blazing fast! 🔥';
  if (wpm >= 50) return 'Above average — nice!';
  if (wpm >= 25) return 'Solid. Keep practising.';
  return 'Every expert was once a beginner.';
}

function finish() {
  if (finished) return;
  finished = true;
  clearInterval(timer);
  inputEl.disabled = true;
  const wpm = computeWpm();
  const acc = computeAccuracy();
  document.getElementById('final-wpm').textContent = wpm;
  document.getElementById('final-acc').textContent = acc;
  document.getElementById('final-chars').textContent = typedChars;
  document.getElementById('final-errors').textContent = errors;
  document.getElementById('verdict').textContent = verdictFor(wpm);
  resultsEl.classList.add('show');
  saveHistory({ when: new Date().toLocaleTimeString(), mode: duration + 's', wpm, acc });
}

function onInput(e) {
  if (finished) return;
  if (!startedAt) startTimer();
  const typed = inputEl.value;
  if (e.inputType && e.inputType.startsWith('insert')) {
    typedChars++;
    const i = typed.length - 1;
    if (typed[i] !== target[i]) errors++;
  }
  if (typed.length >= target.length) {
    target += ' ' + pickWords(30);
  }
  renderText();
  updateLiveStats();
}

function deleteWord() {
  const value = inputEl.value.replace(/\s*\S+\s*$/, '');
  inputEl.value = value;
  renderText();
}

function loadHistory() {
  try { return JSON.parse(localStorage.getItem('typingHistory') || '[]'); } catch (e) { return []; }
}

function saveHistory(entry) {
  const items = loadHistory();
  items.unshift(entry);
  localStorage.setItem('typingHistory', JSON.stringify(items.slice(0, 8)));
  renderHistory();
}

function renderHistory() {
  const items = loadHistory();
  historyEl.innerHTML = items.length
    ? items.map(h => `<tr><td>${h.when}</td><td>${h.mode}</td><td>${h.wpm}</td><td>${h.acc}%</td></tr>`).join('')
    : '<tr><td colspan="4">No tests yet.</td></tr>';
}

function setMode(button) {
  document.querySelectorAll('#modes button').forEach(b => b.classList.remove('active'));
  button.classList.add('active');
  duration = Number(button.dataset.seconds);
  reset();
}

inputEl.addEventListener('input', onInput);
inputEl.addEventListener('keydown', (e) => {
  if (e.key === 'Backspace' && e.ctrlKey) {
    e.preventDefault();
    deleteWord();
  }
});

document.addEventListener('keydown', (e) => {
  if (e.key === 'Tab') {
    tabPressed = true;
    e.preventDefault();
    setTimeout(() => { tabPressed = false; }, 1000);
    return;
  }
  if (e.key === 'Enter' && tabPressed) {
    tabPressed = false;
    reset(false);
  } else if (e.key === 'Escape') {
    reset(true);
  }
});

document.querySelectorAll('#modes button').forEach(btn => btn.addEventListener('click', () => setMode(btn)));
document.getElementById('punctuation').addEventListener('change', () => reset());
document.getElementById('numbers').addEventListener('change', () => reset());
document.getElementById('again').addEventListener('click', () => reset());
document.getElementById('clear-history').addEventListener('click', () => {
  localStorage.removeItem('typingHistory');
  renderHistory();
});

renderHistory();
reset();
