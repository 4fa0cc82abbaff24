// Pocket Budget: expenses with an SVG donut by category and a daily line chart.
const COLORS = { food: '#f4a261', rent: '#264653', transport: '#2a9d8f', fun: '#e76f51', other: '#8d99ae' };
const NAMES = { food: 'Food', rent: 'Rent', transport: 'Transport', fun: 'Fun', other: 'Other' };
const SVG_NS = 'http://www.w3.org/2000/svg';

const today = new Date();
let viewYear = today.getFullYear();
let viewMonth = today.getMonth();
let hidden = new Set();
let expenses = load();

function iso(d) {
  return d.toISOString().slice(0, 10);
}

function sampleExpenses() {
  const y = viewYear, m = viewMonth;
  const day = (n) => iso(new Date(Date.UTC(y, m, n)));
  return [
    { id: 1, desc: 'Rent', amount: 950, category: 'rent', date: day(1) },
    { id: 2, desc: 'Groceries', amount: 84.2, category: 'food', date: day(3) },
    { id: 3, desc: 'Bus pass', amount: 45, category: 'transport', date: day(4) },
    { id: 4, desc: 'Cinema', amount: 24, category: 'fun', date: day(7) },
    { id: 5, desc: 'Pizza night', amount: 31.5, category: 'food', date: day(9) }
  ];
}

function load() {
  try {
    const saved = JSON.parse(localStorage.getItem('pocketBudget'));
    if (Array.isArray(saved) && saved.length) return saved;
  } catch (e) { /* ignore */ }
  return sampleExpenses();
}

function save() {
  localStorage.setItem('pocketBudget', JSON.stringify(expenses));
}

function money(n) {
  return '$' + n.toFixed(2);
}

function inView(e) {
  const d = new Date(e.date + 'T00:00:00Z');
  return d.getUTCFullYear() === viewYear && d.getUTCMonth() === viewMonth;
}

function monthExpenses() {
  return expenses.filter(inView).sort((a, b) => a.date.localeCompare(b.date));
}

function byCategory(list) {
  const totals = {};
  list.forEach(e => { totals[e.category] = (totals[e.category] || 0) + e.amount; });
  return totals;
}

function arcPath(cx, cy, r, inner, start, end) {
  const large = end - start > Math.PI ? 1 : 0;
  const p = (radius, angle) => [cx + radius * Math.cos(angle), cy + radius * Math.sin(angle)];
  const [x1, y1] = p(r, start), [x2, y2] = p(r, end), [x3, y3] = p(inner, end), [x4, y4] = p(inner, start);
  return `M${x1},${y1} A${r},${r} 0 ${large} 1 ${x2},${y2} L${x3},${y3} A${inner},${inner} 0 ${large} 0 ${x4},${y4} Z`;
}

function el(name, attrs) {
  const node = document.createElementNS(SVG_NS, name);
  Object.entries(attrs).forEach(([k, v]) => node.setAttribute(k, v));
  return node;
}

function drawDonut(totals) {
  const svg = document.getElementById('donut');
  svg.innerHTML = '';
  const entries = Object.entries(totals).filter(([c]) => !hidden.has(c));
  const sum = entries.reduce((s, [, v]) => s + v, 0);
  const label = el('text', { x: 150, y: 155, 'text-anchor': 'middle', 'font-size': 22, 'font-weight': 'bold' });
  label.textContent = money(sum);
  if (sum === 0) {
    svg.appendChild(el('circle', { cx: 150, cy: 150, r: 120, fill: 'none', stroke: '#eee', 'stroke-width': 50 }));
    svg.appendChild(label);
    return;
  }
  let angle = -Math.PI / 2;
  entries.forEach(([cat, value]) => {
    const sweep = (value / sum) * Math.PI * 2;
    const end = angle + Math.min(sweep, Math.PI * 2 - 0.0001);
    const path = el('path', { d: arcPath(150, 150, 140, 90, angle, end), fill: COLORS[cat], class: 'slice', 'data-cat': cat });
    const title = el('title', {});
    title.textContent = `${NAMES[cat]}: ${money(value)} (${Math.round((value / sum) * 100)}%)`;
    path.appendChild(title);
    path.addEventListener('mouseenter', () => highlight(cat, value, sum));
    path.addEventListener('mouseleave', () => { label.textContent = money(sum); });
    path.addEventListener('click', () => toggleCategory(cat));
    svg.appendChild(path);
    angle += sweep;
  });
  svg.appendChild(label);

  function highlight(cat, value, total) {
    label.textContent = `${NAMES[cat]} ${Math.round((value / total) * 100)}%`;
  }
}

function drawLegend(totals) {
  const legend = document.getElementById('legend');
  legend.innerHTML = '';
  Object.keys(NAMES).forEach(cat => {
    const li = document.createElement('li');
    li.className = hidden.has(cat) ? 'off' : '';
    li.innerHTML = `<span class="swatch" style="background:${COLORS[cat]}"></span>${NAMES[cat]} <b>${money(totals[cat] || 0)}</b>`;
    li.addEventListener('click', () => toggleCategory(cat));
    legend.appendChild(li);
  });
}

function toggleCategory(cat) {
  if (hidden.has(cat)) hidden.delete(cat); else hidden.add(cat);
  render();
}

function drawLine(list) {
  const svg = document.getElementById('line');
  svg.innerHTML = '';
  const days = new Date(Date.UTC(viewYear, viewMonth + 1, 0)).getUTCDate();
  const perDay = Array(days).fill(0);
  list.filter(e => !hidden.has(e.category)).forEach(e => { perDay[Number(e.date.slice(8, 10)) - 1] += e.amount; });
  let running = 0;
  const cumulative = perDay.map(v => (running += v));
  const max = Math.max(...cumulative, 1);
  const x = i => 30 + (i / (days - 1)) * 550;
  const y = v => 160 - (v / max) * 140;
  svg.appendChild(el('line', { x1: 30, y1: 160, x2: 580, y2: 160, stroke: '#ccc' }));
  const points = cumulative.map((v, i) => `${x(i)},${y(v)}`).join(' ');
  svg.appendChild(el('polyline', { points, fill: 'none', stroke: '#4a4e69', 'stroke-width': 2 }));
  const tip = el('text', { id: 'lineTip', x: 40, y: 20 });
  svg.appendChild(tip);
  cumulative.forEach((v, i) => {
    const dot = el('circle', { cx: x(i), cy: y(v), r: 4, fill: perDay[i] ? '#e76f51' : 'transparent' });
    dot.addEventListener('mouseenter', () => { tip.textContent = `Day ${i + 1}: ${money(perDay[i])} (total ${money(v)})`; });
    svg.appendChild(dot);
  });
  const limit = Number(document.getElementById('limit').value);
  if (limit > 0 && limit <= max * 1.5) {
    const ly = y(Math.min(limit, max));
    svg.appendChild(el('line', { x1: 30, y1: ly, x2: 580, y2: ly, stroke: '#c1121f', 'stroke-dasharray': '4 4' }));
  }
}

function drawTable(list) {
  const rows = document.getElementById('rows');
  rows.innerHTML = list.length ? '' : '<tr><td colspan="5">No expenses this month.</td></tr>';
  list.forEach(e => {
    const tr = document.createElement('tr');
    tr.innerHTML = `<td>${e.date}</td><td></td><td>${NAMES[e.category]}</td><td>${money(e.amount)}</td>
      <td><button class="del" aria-label="Delete ${e.desc}">✕</button></td>`;
    tr.children[1].textContent = e.desc;
    tr.querySelector('.del').addEventListener('click', () => {
      expenses = expenses.filter(x => x.id !== e.id);
      save();
      render();
    });
    rows.appendChild(tr);
  });
}

function updateBudget(list) {
  const limit = Number(document.getElementById('limit').value);
  const spent = list.reduce((s, e) => s + e.amount, 0);
  const status = document.getElementById('budgetStatus');
  if (!limit) {
    status.textContent = `Spent ${money(spent)} (no limit set).`;
    document.getElementById('budgetWarn').classList.add('hidden');
    return;
  }
  const left = limit - spent;
  status.textContent = left >= 0 ? `${money(left)} left of ${money(limit)}.` : `${money(-left)} over your ${money(limit)} limit.`;
  document.getElementById('budgetWarn').classList.toggle('hidden', left >= 0);
}

function render() {
  const list = monthExpenses();
  const label = new Date(Date.UTC(viewYear, viewMonth, 1)).toLocaleDateString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
  document.getElementById('monthLabel').textContent = label;
  const totals = byCategory(list);
  drawDonut(totals);
  drawLegend(totals);
  drawLine(list);
  drawTable(list);
  updateBudget(list);
}

function validate(form) {
  const desc = form.desc.value.trim();
  const amount = Number(form.amount.value);
  if (!desc) return 'Please describe the expense.';
  if (!form.amount.value || !(amount > 0)) return 'Amount must be more than zero.';
  if (amount > 100000) return 'That is a lot! Amounts over $100,000 are not allowed.';
  if (form.date.value && form.date.value > iso(new Date())) return 'The date cannot be in the future.';
  return null;
}

document.getElementById('expenseForm').addEventListener('submit', (e) => {
  e.preventDefault();
  const form = e.target.elements;
  const error = validate(form);
  document.getElementById('formError').textContent = error || '';
  if (error) return;
  const date = form.date.value || iso(new Date());
  expenses.push({ id: Date.now(), desc: form.desc.value.trim(), amount: Math.round(Number(form.amount.value) * 100) / 100, category: form.category.value, date });
  const d = new Date(date + 'T00:00:00Z');
  viewYear = d.getUTCFullYear();
  viewMonth = d.getUTCMonth();
  save();
  e.target.reset();
  render();
});

document.getElementById('prevMonth').addEventListener('click', () => {
  viewMonth--;
  if (viewMonth < 0) { viewMonth = 11; viewYear--; }
  render();
});
document.getElementById('nextMonth').addEventListener('click', () => {
  viewMonth++;
  if (viewMonth > 11) { viewMonth = 0; viewYear++; }
  render();
});
document.getElementById('limit').addEventListener('input', render);

render();
