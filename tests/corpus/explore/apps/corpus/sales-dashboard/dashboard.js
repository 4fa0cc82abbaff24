// Wires the controls, KPIs, chart and table together.
const chart = new Chart(document.getElementById('chart'));
const tooltip = document.getElementById('tooltip');
let sortKey = 'month';
let sortDir = 1;

function selectedRegions() {
  return [...document.querySelectorAll('input[name=region]:checked')].map(c => c.value);
}

function metric() {
  return document.querySelector('input[name=metric]:checked').value;
}

function monthRange() {
  let from = Number(document.getElementById('fromMonth').value);
  let to = Number(document.getElementById('toMonth').value);
  if (from > to) [from, to] = [to, from];
  return [from, to];
}

function formatter(kind) {
  if (kind === 'revenue') return v => '$' + (v >= 1000 ? (v / 1000).toFixed(1) + 'k' : Math.round(v));
  if (kind === 'margin') return v => v.toFixed(1) + '%';
  return v => String(Math.round(v));
}

function valuesFor(year, region, kind, from, to) {
  return SALES[year][region].slice(from, to + 1).map(m => m[kind]);
}

function aggregate(values, kind) {
  if (kind === 'margin') return values.reduce((a, b) => a + b, 0) / (values.length || 1);
  return values.reduce((a, b) => a + b, 0);
}

function updateKpis(year, regions, kind, from, to) {
  const format = formatter(kind);
  const monthly = MONTHS.slice(from, to + 1).map((_, i) =>
    aggregate(regions.map(r => valuesFor(year, r, kind, from, to)[i]), kind));
  const total = aggregate(monthly, kind);
  document.getElementById('kpiTotal').textContent = regions.length ? format(total) : '–';
  if (regions.length) {
    const best = monthly.indexOf(Math.max(...monthly));
    document.getElementById('kpiBest').textContent = `${MONTHS[from + best]} (${format(monthly[best])})`;
  } else {
    document.getElementById('kpiBest').textContent = '–';
  }
  const previous = SALES[year - 1];
  const growthEl = document.getElementById('kpiGrowth');
  if (!previous || !regions.length) {
    growthEl.textContent = 'n/a';
    growthEl.className = '';
    return;
  }
  const before = aggregate(MONTHS.slice(from, to + 1).map((_, i) =>
    aggregate(regions.map(r => valuesFor(year - 1, r, kind, from, to)[i]), kind)), kind);
  const change = ((total - before) / before) * 100;
  growthEl.textContent = (change >= 0 ? '+' : '') + change.toFixed(1) + '%';
  growthEl.className = change >= 0 ? 'up' : 'down';
}

function tableRows(year, kind, from, to) {
  return MONTHS.slice(from, to + 1).map((month, i) => {
    const row = { month, index: from + i };
    REGIONS.forEach(r => { row[r] = SALES[year][r][from + i][kind]; });
    row.total = aggregate(REGIONS.map(r => row[r]), kind);
    return row;
  });
}

function renderTable(year, kind, from, to) {
  const format = formatter(kind);
  const rows = tableRows(year, kind, from, to);
  rows.sort((a, b) => {
    if (sortKey === 'month') return (a.index - b.index) * sortDir;
    return (a[sortKey] - b[sortKey]) * sortDir;
  });
  document.querySelector('#dataTable tbody').innerHTML = rows.map(r =>
    `<tr><td>${r.month}</td>${REGIONS.map(k => `<td>${format(r[k])}</td>`).join('')}<td><b>${format(r.total)}</b></td></tr>`).join('');
  document.querySelectorAll('th.sortable').forEach(th => {
    th.classList.toggle('asc', th.dataset.key === sortKey && sortDir === 1);
    th.classList.toggle('desc', th.dataset.key === sortKey && sortDir === -1);
  });
}

function renderLegend(regions) {
  document.getElementById('legend').innerHTML = regions.map(r =>
    `<span style="--c:${REGION_COLORS[r]}">${r[0].toUpperCase() + r.slice(1)}</span>`).join('');
}

function update() {
  const year = Number(document.getElementById('year').value);
  const regions = selectedRegions();
  const kind = metric();
  const [from, to] = monthRange();
  document.getElementById('fromOut').textContent = MONTHS[Number(document.getElementById('fromMonth').value)];
  document.getElementById('toOut').textContent = MONTHS[Number(document.getElementById('toMonth').value)];
  const series = regions.map(r => ({ name: r, color: REGION_COLORS[r], values: valuesFor(year, r, kind, from, to) }));
  chart.draw(MONTHS.slice(from, to + 1), series, formatter(kind));
  updateKpis(year, regions, kind, from, to);
  renderTable(year, kind, from, to);
  renderLegend(regions);
}

function exportCsv() {
  const year = Number(document.getElementById('year').value);
  const kind = metric();
  const [from, to] = monthRange();
  const rows = tableRows(year, kind, from, to);
  const lines = [['month', ...REGIONS, 'total'].join(',')].concat(
    rows.map(r => [r.month, ...REGIONS.map(k => r[k]), r.total].join(',')));
  const blob = new Blob([lines.join('\n')], { type: 'text/csv' });
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = `sales-${year}-${kind}.csv`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

const canvas = document.getElementById('chart');
canvas.addEventListener('mousemove', (e) => {
  const rect = canvas.getBoundingClientRect();
  const x = (e.clientX - rect.left) * (canvas.width / rect.width);
  const y = (e.clientY - rect.top) * (canvas.height / rect.height);
  const hit = chart.hit(x, y);
  if (hit) {
    tooltip.textContent = hit.text;
    tooltip.style.left = e.clientX - rect.left + 16 + 'px';
    tooltip.style.top = e.clientY - rect.top + 'px';
    tooltip.classList.remove('hidden');
    canvas.style.cursor = 'pointer';
  } else {
    tooltip.classList.add('hidden');
    canvas.style.cursor = 'default';
  }
});
canvas.addEventListener('mouseleave', () => tooltip.classList.add('hidden'));

document.querySelectorAll('.controls input, .controls select').forEach(el => el.addEventListener('input', update));
document.querySelectorAll('.chart-type button').forEach(btn => btn.addEventListener('click', () => {
  document.querySelectorAll('.chart-type button').forEach(b => b.classList.toggle('active', b === btn));
  chart.type = btn.dataset.type;
  update();
}));
document.querySelectorAll('th.sortable').forEach(th => th.addEventListener('click', () => {
  if (sortKey === th.dataset.key) sortDir = -sortDir;
  else { sortKey = th.dataset.key; sortDir = th.dataset.key === 'month' ? 1 : -1; }
  update();
}));
document.getElementById('exportCsv').addEventListener('click', exportCsv);
document.getElementById('themeToggle').addEventListener('click', (e) => {
  const dark = document.body.classList.toggle('dark');
  e.currentTarget.setAttribute('aria-pressed', String(dark));
  e.currentTarget.textContent = dark ? '☀️ Light mode' : '🌙 Dark mode';
  update();
});

update();
