// ===== Trivia Night =====
const QUIZ_LENGTH = 10;
const screens = ['start-screen', 'quiz-screen', 'result-screen', 'scores-screen'];

const els = {
  question: document.getElementById('question-text'),
  answers: document.getElementById('answers'),
  progress: document.getElementById('progress'),
  score: document.getElementById('score-display'),
  timeLeft: document.getElementById('time-left'),
  timerFill: document.getElementById('timer-fill'),
  feedback: document.getElementById('feedback'),
  next: document.getElementById('next-btn'),
  fifty: document.getElementById('fifty-btn'),
  skip: document.getElementById('skip-btn')
};

let quiz = [];
let current = 0;
let score = 0;
let answered = false;
let timeLimit = 15;
let remaining = 15;
let countdown = null;
let history = [];
let usedFifty = false;
let usedSkip = false;
let category = 'all';

function showScreen(id) {
  screens.forEach(s => document.getElementById(s).classList.toggle('active', s === id));
}

function shuffled(list) {
  return list.map(v => [Math.random(), v]).sort((a, b) => a[0] - b[0]).map(p => p[1]);
}

function buildQuiz() {
  category = document.getElementById('category').value;
  const pool = category === 'all' ? QUESTION_BANK : QUESTION_BANK.filter(q => q.category === category);
  const picked = shuffled(pool);
  // repeat questions if the category has fewer than QUIZ_LENGTH
  const result = [];
  while (result.length < QUIZ_LENGTH) result.push(...picked);
  return result.slice(0, QUIZ_LENGTH);
}

function startQuiz() {
  const difficulty = document.querySelector('input[name="difficulty"]:checked').value;
  timeLimit = difficulty === 'hard' ? 10 : 15;
  quiz = buildQuiz();
  current = 0;
  score = 0;
  history = [];
  usedFifty = false;
  usedSkip = false;
  els.fifty.disabled = false;
  els.skip.disabled = false;
  showScreen('quiz-screen');
  renderQuestion();
}

function renderQuestion() {
  const item = quiz[current];
  answered = false;
  els.progress.textContent = `Question ${current + 1} / ${QUIZ_LENGTH}`;
  els.score.textContent = `Score: ${score}`;
  els.question.textContent = item.q;
  els.feedback.textContent = '';
  els.next.classList.add('hidden');
  els.answers.innerHTML = '';
  item.a.forEach((text, index) => {
    const btn = document.createElement('button');
    btn.className = 'answer';
    btn.textContent = text;
    btn.addEventListener('click', () => selectAnswer(index));
    els.answers.appendChild(btn);
  });
  startCountdown();
}

function startCountdown() {
  clearInterval(countdown);
  remaining = timeLimit;
  updateTimer();
  countdown = setInterval(() => {
    remaining--;
    updateTimer();
    if (remaining <= 0) {
      clearInterval(countdown);
      timeUp();
    }
  }, 1000);
}

function updateTimer() {
  els.timeLeft.textContent = remaining;
  els.timerFill.style.width = (remaining / timeLimit) * 100 + '%';
  els.timeLeft.classList.toggle('urgent', remaining <= 5);
}

function lockAnswers(correctIndex, chosenIndex) {
  [...els.answers.children].forEach((btn, i) => {
    btn.disabled = true;
    if (i === correctIndex) btn.classList.add('correct');
    else if (i === chosenIndex) btn.classList.add('wrong');
  });
}

function selectAnswer(index) {
  if (answered) return;
  answered = true;
  clearInterval(countdown);
  const item = quiz[current];
  const right = index === item.correct;
  if (right) {
    // faster answers earn more points
    score += 10 + remaining;
    els.feedback.textContent = 'Correct! 🎉';
  } else {
    els.feedback.textContent = `Nope — it was "${item.a[item.correct]}".`;
  }
  history.push({ q: item.q, chosen: item.a[index], answer: item.a[item.correct], right });
  lockAnswers(item.correct, index);
  els.score.textContent = `Score: ${score}`;
  els.next.classList.remove('hidden');
}

function timeUp() {
  if (answered) return;
  answered = true;
  const item = quiz[current];
  els.feedback.textContent = `⏰ Time's up! The answer was "${item.a[item.correct]}".`;
  history.push({ q: item.q, chosen: null, answer: item.a[item.correct], right: false });
  lockAnswers(item.correct, -1);
  els.next.classList.remove('hidden');
}

function useFifty() {
  if (usedFifty || answered) return;
  usedFifty = true;
  els.fifty.disabled = true;
  const item = quiz[current];
  const wrong = item.a.map((_, i) => i).filter(i => i !== item.correct);
  shuffled(wrong).slice(0, 2).forEach(i => {
    els.answers.children[i].classList.add('removed');
    els.answers.children[i].disabled = true;
  });
}

function useSkip() {
  if (usedSkip || answered) return;
  usedSkip = true;
  els.skip.disabled = true;
  clearInterval(countdown);
  history.push({ q: quiz[current].q, chosen: 'skipped', answer: quiz[current].a[quiz[current].correct], right: false });
  nextQuestion();
}

function nextQuestion() {
  current++;
  if (current >= QUIZ_LENGTH) {
    finishQuiz();
  } else {
    renderQuestion();
  }
}

function gradeFor(points) {
  if (points >= 200) return '🏆 Trivia master';
  if (points >= 140) return '🥈 Sharp mind';
  if (points >= 80) return '🥉 Not bad';
  return '📚 Time to hit the books';
}

function finishQuiz() {
  clearInterval(countdown);
  const correctCount = history.filter(h => h.right).length;
  document.getElementById('result-summary').textContent =
    `You answered ${correctCount} of ${QUIZ_LENGTH} correctly for ${score} points.`;
  document.getElementById('result-grade').textContent = gradeFor(score);
  document.getElementById('review-list').classList.add('hidden');
  document.getElementById('save-error').textContent = '';
  document.getElementById('save-form').classList.remove('hidden');
  showScreen('result-screen');
}

function renderReview() {
  const list = document.getElementById('review-list');
  list.innerHTML = history.map(h =>
    `<li>${h.right ? '✅' : '❌'} ${h.q}<br><small>Your answer: ${h.chosen || 'none'} · Correct: ${h.answer}</small></li>`
  ).join('');
  list.classList.toggle('hidden');
}

function getScores() {
  return JSON.parse(localStorage.getItem('triviaScores') || '[]');
}

function saveScore(event) {
  event.preventDefault();
  const name = document.getElementById('player-name').value.trim();
  const error = document.getElementById('save-error');
  if (name.length < 2) {
    error.textContent = 'Please enter at least 2 characters.';
    return;
  }
  const scores = getScores();
  scores.push({ name, score, category });
  scores.sort((a, b) => b.score - a.score);
  localStorage.setItem('triviaScores', JSON.stringify(scores.slice(0, 10)));
  error.textContent = '';
  document.getElementById('save-form').classList.add('hidden');
  showScores();
}

function showScores() {
  const body = document.getElementById('scores-body');
  const scores = getScores();
  body.innerHTML = scores.length
    ? scores.map((s, i) => `<tr><td>${i + 1}</td><td>${s.name}</td><td>${s.score}</td><td>${s.category}</td></tr>`).join('')
    : '<tr><td colspan="4">No scores yet — be the first!</td></tr>';
  showScreen('scores-screen');
}

document.getElementById('start-btn').addEventListener('click', startQuiz);
document.getElementById('restart-btn').addEventListener('click', () => showScreen('start-screen'));
document.getElementById('scores-btn').addEventListener('click', showScores);
document.getElementById('back-btn').addEventListener('click', () => showScreen('start-screen'));
document.getElementById('review-btn').addEventListener('click', renderReview);
document.getElementById('save-form').addEventListener('submit', saveScore);
els.next.addEventListener('click', nextQuestion);
els.fifty.addEventListener('click', useFifty);
els.skip.addEventListener('click', useSkip);

document.addEventListener('keydown', (e) => {
  const screen = document.querySelector('.screen.active').id;
  if (screen !== 'quiz-screen') return;
  if (['1', '2', '3', '4'].includes(e.key) && !answered) {
    const btn = els.answers.children[Number(e.key) - 1];
    if (btn && !btn.disabled) selectAnswer(Number(e.key) - 1);
  } else if (e.key === 'Enter' && answered) {
    nextQuestion();
  }
});
