// Northwind Bank demo: login, accounts, transfers with confirmation, history, settings.
const PAGE_SIZE = 8;
const IDLE_WARN_MS = 45000;
const IDLE_LOGOUT_MS = 60000;
const CATEGORY_COLORS = { groceries: '#2e86c1', dining: '#e67e22', bills: '#8e44ad', travel: '#16a085', shopping: '#c0392b', income: '#27ae60', transfer: '#7f8c8d' };

let state = null;
let page = 0;
let pendingTransfer = null;
let idleWarnTimer = null;
let idleLogoutTimer = null;

function makeState(customerId) {
  const accounts = [
    { id: 'chk', name: 'Everyday Checking', number: '•••• 4821', balance: 2450.75 },
    { id: 'sav', name: 'High-Yield Savings', number: '•••• 9930', balance: 12800.0 },
    { id: 'crd', name: 'Rewards Credit Card', number: '•••• 1177', balance: -642.18 }
  ];
  const descriptions = [
    ['Whole Foods Market', 'groceries', -86.4], ['Salary — ACME Corp', 'income', 3200], ['Electric bill', 'bills', -74.1],
    ['Blue Bottle Coffee', 'dining', -6.5], ['Delta Air Lines', 'travel', -412.0], ['Amazon', 'shopping', -59.99],
    ['Trader Joe\'s', 'groceries', -54.2], ['Netflix', 'bills', -15.49], ['Chipotle', 'dining', -13.75], ['Target', 'shopping', -38.0]
  ];
  const transactions = [];
  for (let i = 0; i < 30; i++) {
    const [desc, category, amount] = descriptions[i % descriptions.length];
    const date = new Date(Date.now() - i * 2.3 * 86400000);
    transactions.push({ id: i + 1, account: i % 4 === 3 ? 'crd' : 'chk', date: date.toISOString().slice(0, 10), desc, category, amount });
  }
  return { customerId, accounts, transactions, settings: { nickname: '', dark: false, alerts: true, alertLimit: 500 } };
}

function money(n) {
  const sign = n < 0 ? '−' : '';
  return sign + '$' + Math.abs(n).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

function accountName(acc) {
  return acc.id === 'chk' && state.settings.nickname ? state.settings.nickname : acc.name;
}

// ===== Login / logout =====
document.getElementById('loginForm').addEventListener('submit', (e) => {
  e.preventDefault();
  const id = document.getElementById('customerId').value.trim();
  const pin = document.getElementById('pin').value;
  const error = document.getElementById('loginError');
  if (!id) { error.textContent = 'Enter your customer ID.'; return; }
  if (!pin) { error.textContent = 'Enter your password.'; return; }
  error.textContent = '';
  state = makeState(id);
  document.getElementById('customerName').textContent = id.includes('@') ? id.split('@')[0] : 'customer ' + id.slice(-4);
  document.getElementById('login').classList.add('hidden');
  document.getElementById('app').classList.remove('hidden');
  showView('overview');
  resetIdle();
});

function logout(reason) {
  state = null;
  clearTimeout(idleWarnTimer);
  clearTimeout(idleLogoutTimer);
  document.body.classList.remove('dark');
  document.getElementById('app').classList.add('hidden');
  document.getElementById('login').classList.remove('hidden');
  document.getElementById('loginForm').reset();
  document.getElementById('loginError').textContent = reason || '';
}

document.getElementById('logout').addEventListener('click', () => logout());

function resetIdle() {
  if (!state) return;
  clearTimeout(idleWarnTimer);
  clearTimeout(idleLogoutTimer);
  document.getElementById('idleWarning').classList.add('hidden');
  idleWarnTimer = setTimeout(() => document.getElementById('idleWarning').classList.remove('hidden'), IDLE_WARN_MS);
  idleLogoutTimer = setTimeout(() => logout('You were logged out after a minute without activity.'), IDLE_LOGOUT_MS);
}

document.getElementById('stayLoggedIn').addEventListener('click', resetIdle);
['click', 'keydown'].forEach(type => document.addEventListener(type, () => { if (state) resetIdle(); }));

// ===== Views =====
function showView(name) {
  document.querySelectorAll('.view').forEach(v => v.classList.toggle('hidden', v.id !== 'view-' + name));
  document.querySelectorAll('.nav-link').forEach(b => b.classList.toggle('active', b.dataset.view === name));
  if (name === 'overview') renderOverview();
  if (name === 'transfer') renderTransferForm();
  if (name === 'history') { page = 0; renderHistory(); }
  if (name === 'settings') renderSettings();
}

document.querySelectorAll('.nav-link').forEach(b => b.addEventListener('click', () => showView(b.dataset.view)));

function renderOverview() {
  const box = document.getElementById('accountCards');
  box.innerHTML = '';
  state.accounts.forEach(acc => {
    const card = document.createElement('div');
    card.className = 'account';
    card.tabIndex = 0;
    card.innerHTML = `<div>${accountName(acc)}</div><small>${acc.number}</small><div class="balance ${acc.balance < 0 ? 'out' : ''}">${money(acc.balance)}</div>`;
    card.addEventListener('click', () => {
      showView('history');
      document.getElementById('historyAccount').value = acc.id;
      renderHistory();
    });
    box.appendChild(card);
  });
  drawSpending();
}

function drawSpending() {
  const svg = document.getElementById('spendChart');
  const month = new Date().toISOString().slice(0, 7);
  const totals = {};
  state.transactions.filter(t => t.amount < 0 && t.date.startsWith(month)).forEach(t => {
    totals[t.category] = (totals[t.category] || 0) + -t.amount;
  });
  const entries = Object.entries(totals).sort((a, b) => b[1] - a[1]);
  if (!entries.length) {
    svg.innerHTML = '<text x="20" y="40">No spending yet this month.</text>';
    return;
  }
  const max = entries[0][1];
  svg.innerHTML = entries.map(([cat, value], i) => {
    const w = (value / max) * 420;
    const y = 10 + i * 30;
    return `<text x="0" y="${y + 16}" font-size="13">${cat}</text>
      <rect x="100" y="${y}" width="${w}" height="20" rx="3" fill="${CATEGORY_COLORS[cat]}"><title>${cat}: ${money(value)}</title></rect>
      <text x="${110 + w}" y="${y + 15}" font-size="12">${money(value)}</text>`;
  }).join('');
}

// ===== Transfers =====
function accountOptions(select, exclude) {
  select.innerHTML = state.accounts.filter(a => a.id !== exclude)
    .map(a => `<option value="${a.id}">${accountName(a)} (${money(a.balance)})</option>`).join('');
}

function renderTransferForm() {
  const from = document.getElementById('fromAccount');
  accountOptions(from);
  accountOptions(document.getElementById('toAccount'), from.value);
  document.getElementById('confirmBox').classList.add('hidden');
  document.getElementById('transferDone').classList.add('hidden');
  document.getElementById('transferError').textContent = '';
}

document.getElementById('fromAccount').addEventListener('change', (e) => {
  accountOptions(document.getElementById('toAccount'), e.target.value);
});

function validateTransfer(from, to, amount) {
  if (!(amount > 0)) return 'Enter an amount greater than zero.';
  if (Math.round(amount * 100) !== amount * 100) return 'Amounts can have at most two decimals.';
  if (from.id === to.id) return 'Choose two different accounts.';
  if (from.id === 'crd') return 'You cannot transfer from a credit card.';
  if (amount > from.balance) return `Not enough money: ${accountName(from)} has ${money(from.balance)}.`;
  if (amount > 10000) return 'Transfers over $10,000 need a call to your branch.';
  return null;
}

document.getElementById('transferForm').addEventListener('submit', (e) => {
  e.preventDefault();
  const f = e.target.elements;
  const from = state.accounts.find(a => a.id === f.from.value);
  const to = state.accounts.find(a => a.id === f.to.value);
  const amount = Number(f.amount.value);
  const error = validateTransfer(from, to, amount);
  document.getElementById('transferError').textContent = error || '';
  if (error) return;
  pendingTransfer = { from, to, amount, memo: f.memo.value.trim() };
  const large = state.settings.alerts && amount > state.settings.alertLimit ? ' We will email you about this large transfer.' : '';
  document.getElementById('confirmText').textContent =
    `Move ${money(amount)} from ${accountName(from)} to ${accountName(to)}?${large}`;
  document.getElementById('confirmBox').classList.remove('hidden');
});

document.getElementById('confirmTransfer').addEventListener('click', () => {
  if (!pendingTransfer) return;
  const { from, to, amount, memo } = pendingTransfer;
  from.balance = Math.round((from.balance - amount) * 100) / 100;
  to.balance = Math.round((to.balance + amount) * 100) / 100;
  const date = new Date().toISOString().slice(0, 10);
  const id = state.transactions.length + 1;
  state.transactions.unshift({ id, account: from.id, date, desc: memo || 'Transfer to ' + accountName(to), category: 'transfer', amount: -amount });
  state.transactions.unshift({ id: id + 1, account: to.id, date, desc: memo || 'Transfer from ' + accountName(from), category: 'transfer', amount });
  pendingTransfer = null;
  document.getElementById('transferForm').reset();
  renderTransferForm();
  const done = document.getElementById('transferDone');
  done.textContent = `✅ ${money(amount)} transferred.`;
  done.classList.remove('hidden');
});

document.getElementById('cancelTransfer').addEventListener('click', () => {
  pendingTransfer = null;
  document.getElementById('confirmBox').classList.add('hidden');
});

// ===== History =====
function filteredTransactions() {
  const account = document.getElementById('historyAccount').value;
  const type = document.getElementById('historyType').value;
  const term = document.getElementById('historySearch').value.trim().toLowerCase();
  return state.transactions.filter(t =>
    (account === 'all' || t.account === account) &&
    (type === 'all' || (type === 'in' ? t.amount > 0 : t.amount < 0)) &&
    (!term || t.desc.toLowerCase().includes(term)));
}

function renderHistory() {
  const select = document.getElementById('historyAccount');
  if (!select.options.length) {
    select.innerHTML = '<option value="all">All accounts</option>' + state.accounts.map(a => `<option value="${a.id}">${accountName(a)}</option>`).join('');
  }
  const rows = filteredTransactions();
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  page = Math.min(page, pages - 1);
  const shown = rows.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE);
  document.getElementById('historyRows').innerHTML = shown.length ? shown.map(t =>
    `<tr><td>${t.date}</td><td>${t.desc}</td><td>${t.category}</td><td class="num ${t.amount < 0 ? 'out' : 'in'}">${money(t.amount)}</td></tr>`).join('')
    : '<tr><td colspan="4">No transactions match.</td></tr>';
  document.getElementById('pageInfo').textContent = `Page ${page + 1} of ${pages}`;
  document.getElementById('prevPage').disabled = page === 0;
  document.getElementById('nextPage').disabled = page >= pages - 1;
}

['historyAccount', 'historyType'].forEach(id => document.getElementById(id).addEventListener('change', () => { page = 0; renderHistory(); }));
document.getElementById('historySearch').addEventListener('input', () => { page = 0; renderHistory(); });
document.getElementById('prevPage').addEventListener('click', () => { page--; renderHistory(); });
document.getElementById('nextPage').addEventListener('click', () => { page++; renderHistory(); });

// ===== Settings =====
function renderSettings() {
  document.getElementById('nickname').value = state.settings.nickname;
  document.getElementById('darkMode').checked = state.settings.dark;
  document.getElementById('alerts').checked = state.settings.alerts;
  document.getElementById('alertLimit').value = state.settings.alertLimit;
  document.getElementById('alertLimit').disabled = !state.settings.alerts;
  document.getElementById('settingsSaved').classList.add('hidden');
}

document.getElementById('alerts').addEventListener('change', (e) => {
  document.getElementById('alertLimit').disabled = !e.target.checked;
});
document.getElementById('darkMode').addEventListener('change', (e) => document.body.classList.toggle('dark', e.target.checked));
document.getElementById('settingsForm').addEventListener('submit', (e) => {
  e.preventDefault();
  state.settings = {
    nickname: document.getElementById('nickname').value.trim(),
    dark: document.getElementById('darkMode').checked,
    alerts: document.getElementById('alerts').checked,
    alertLimit: Math.max(50, Number(document.getElementById('alertLimit').value) || 500)
  };
  document.body.classList.toggle('dark', state.settings.dark);
  const saved = document.getElementById('settingsSaved');
  saved.classList.remove('hidden');
  setTimeout(() => saved.classList.add('hidden'), 2500);
});
