// PollBox: polls, votes and results kept in localStorage; hash routing between views.
'use strict';

const STORE_KEY = 'pollbox-v1';
const DEFAULT_POLLS = [
  { id: 'lunch', question: 'Where should the team lunch be this Friday?', options: ['Noodle bar', 'Pizza place', 'Salad café', 'Taco truck'], votes: [4, 7, 2, 5] },
  { id: 'meeting', question: 'Best time for the weekly meeting?', options: ['Monday 9:00', 'Tuesday 14:00', 'Thursday 10:00'], votes: [3, 6, 4] },
  { id: 'editor', question: 'Which editor do you use most?', options: ['VS Code', 'Vim', 'JetBrains IDE', 'Other'], votes: [12, 4, 6, 1] },
];

function loadState() {
  try {
    const state = JSON.parse(localStorage.getItem(STORE_KEY));
    if (state && Array.isArray(state.polls)) return state;
  } catch (e) { /* corrupted storage: start again */ }
  return { polls: structuredClone(DEFAULT_POLLS), voted: {} };
}

const state = loadState();
const save = () => localStorage.setItem(STORE_KEY, JSON.stringify(state));
const byId = (id) => state.polls.find((p) => p.id === id) || state.polls[0];
const total = (poll) => poll.votes.reduce((a, b) => a + b, 0);
let chart = null;

function show(view) {
  const name = ['home', 'vote', 'results', 'create'].includes(view) ? view : 'home';
  document.querySelectorAll('.view').forEach((el) => { el.hidden = el.id !== 'view-' + name; });
  document.querySelectorAll('nav a').forEach((a) => a.classList.toggle('active', a.dataset.view === name));
  if (name === 'home') renderCards();
  if (name === 'vote') renderVoteOptions();
  if (name === 'results') renderResults();
}

function fillSelect(select, selected) {
  select.replaceChildren(...state.polls.map((p) => new Option(p.question, p.id, false, p.id === selected)));
}

function renderCards() {
  const cards = document.getElementById('poll-cards');
  cards.replaceChildren(...state.polls.map((poll) => {
    const card = document.createElement('article');
    card.className = 'card';
    card.innerHTML = `<h2></h2><p class="meta"></p><div class="actions">
      <button type="button" class="primary" data-go="vote">Vote</button>
      <button type="button" data-go="results">Results</button></div>`;
    card.querySelector('h2').textContent = poll.question;
    card.querySelector('.meta').textContent =
      `${poll.options.length} options · ${total(poll)} votes` + (state.voted[poll.id] ? ' · you voted' : '');
    card.querySelectorAll('button').forEach((b) => b.addEventListener('click', () => {
      document.getElementById('vote-poll').dataset.pick = poll.id;
      document.getElementById('results-poll').dataset.pick = poll.id;
      location.hash = b.dataset.go;
    }));
    return card;
  }));
}

function renderVoteOptions() {
  const select = document.getElementById('vote-poll');
  fillSelect(select, select.dataset.pick || select.value);
  const poll = byId(select.value);
  const box = document.getElementById('vote-options');
  box.replaceChildren(box.querySelector('legend'));
  poll.options.forEach((text, i) => {
    const label = document.createElement('label');
    const radio = Object.assign(document.createElement('input'), { type: 'radio', name: 'option', value: String(i) });
    label.append(radio, ' ' + text);
    box.append(label);
  });
  document.getElementById('vote-error').hidden = true;
}

function submitVote(event) {
  event.preventDefault();
  const poll = byId(document.getElementById('vote-poll').value);
  const picked = document.querySelector('#vote-options input:checked');
  const error = document.getElementById('vote-error');
  if (!picked) {
    error.textContent = 'Please choose one option before submitting.';
    error.hidden = false;
    return;
  }
  if (state.voted[poll.id] !== undefined) {
    error.textContent = 'You have already voted in this poll.';
    error.hidden = false;
    return;
  }
  poll.votes[Number(picked.value)] += 1;
  state.voted[poll.id] = Number(picked.value);
  save();
  error.hidden = true;
  const toast = document.getElementById('toast');
  toast.textContent = `Thanks! Your vote for “${poll.options[picked.value]}” was recorded.`;
  toast.hidden = false;
  setTimeout(() => { toast.hidden = true; }, 4000);
}

function renderResults() {
  const select = document.getElementById('results-poll');
  fillSelect(select, select.dataset.pick || select.value);
  const poll = byId(select.value);
  const sum = total(poll);
  document.getElementById('results-total').textContent = `${sum} votes in total`;
  const rows = poll.options.map((text, i) => {
    const tr = document.createElement('tr');
    const share = sum ? Math.round((poll.votes[i] / sum) * 100) : 0;
    [text, poll.votes[i], share + '%'].forEach((v) => tr.append(Object.assign(document.createElement('td'), { textContent: v })));
    return tr;
  });
  document.querySelector('#results-table tbody').replaceChildren(...rows);
  if (!window.Chart) return; // chart library unavailable: the table still shows the numbers
  if (chart) chart.destroy();
  chart = new window.Chart(document.getElementById('results-chart'), {
    type: 'bar',
    data: { labels: poll.options, datasets: [{ label: 'Votes', data: poll.votes, backgroundColor: '#001f54' }] },
    options: { maintainAspectRatio: false, plugins: { legend: { display: false } }, scales: { y: { beginAtZero: true, ticks: { precision: 0 } } } },
  });
}

function submitPoll(event) {
  event.preventDefault();
  const question = document.getElementById('create-question').value.trim();
  const options = document.getElementById('create-options').value.split('\n').map((s) => s.trim()).filter(Boolean);
  const problems = [];
  if (question.length < 5) problems.push('The question needs at least 5 characters.');
  if (options.length < 2) problems.push('Give at least two options.');
  if (new Set(options.map((o) => o.toLowerCase())).size !== options.length) problems.push('Options must be different from each other.');
  const list = document.getElementById('create-errors');
  list.replaceChildren(...problems.map((p) => Object.assign(document.createElement('li'), { textContent: p })));
  list.hidden = problems.length === 0;
  if (problems.length) return;
  const id = 'poll-' + Date.now().toString(36);
  state.polls.push({ id, question, options, votes: options.map(() => 0) });
  save();
  event.target.reset();
  document.getElementById('vote-poll').dataset.pick = id;
  location.hash = 'vote';
}

document.getElementById('vote-form').addEventListener('submit', submitVote);
document.getElementById('create-form').addEventListener('submit', submitPoll);
document.getElementById('vote-poll').addEventListener('change', (e) => { e.target.dataset.pick = e.target.value; renderVoteOptions(); });
document.getElementById('results-poll').addEventListener('change', (e) => { e.target.dataset.pick = e.target.value; renderResults(); });
window.addEventListener('hashchange', () => show(location.hash.slice(1)));
show(location.hash.slice(1));
