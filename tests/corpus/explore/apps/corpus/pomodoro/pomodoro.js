// Focus — a Pomodoro timer with tasks, configurable durations and automatic breaks.
const DEFAULTS = { focus: 25, short: 5, long: 15, interval: 4, autoStart: false, sound: true };
const LABELS = { focus: 'Time to focus!', short: 'Time for a short break', long: 'Time for a long break' };
const CIRCUMFERENCE = 2 * Math.PI * 100;

let settings = loadSettings();
let mode = 'focus';
let remaining = settings.focus * 60;
let total = remaining;
let running = false;
let intervalId = null;
let endsAt = 0;
let completedFocus = 0;
let tasks = JSON.parse(localStorage.getItem('focusTasks') || '[]');
let activeTaskId = tasks.length ? tasks[0].id : null;

const clockEl = document.getElementById('clock');
const startBtn = document.getElementById('startBtn');
const ring = document.getElementById('ring');

function loadSettings() {
  try {
    return { ...DEFAULTS, ...JSON.parse(localStorage.getItem('focusSettings') || '{}') };
  } catch (e) {
    return { ...DEFAULTS };
  }
}

function format(seconds) {
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return String(m).padStart(2, '0') + ':' + String(s).padStart(2, '0');
}

function render() {
  clockEl.textContent = format(remaining);
  document.title = `${format(remaining)} — ${mode === 'focus' ? 'Focus' : 'Break'}`;
  ring.style.strokeDashoffset = String(CIRCUMFERENCE * (1 - remaining / total));
  startBtn.textContent = running ? 'Pause' : 'Start';
  const session = (completedFocus % settings.interval) + 1;
  document.getElementById('sessionLabel').textContent = `Session ${session} of ${settings.interval} · ${LABELS[mode]}`;
}

function setMode(next, autoStart = false) {
  stop();
  mode = next;
  remaining = total = settings[next] * 60;
  document.body.className = 'mode-' + next;
  document.querySelectorAll('.mode').forEach(b => b.classList.toggle('active', b.dataset.mode === next));
  render();
  if (autoStart) start();
}

function tick() {
  remaining = Math.max(0, Math.round((endsAt - Date.now()) / 1000));
  render();
  if (remaining === 0) complete();
}

function start() {
  if (running) return;
  running = true;
  endsAt = Date.now() + remaining * 1000;
  intervalId = setInterval(tick, 250);
  render();
}

function stop() {
  running = false;
  clearInterval(intervalId);
  intervalId = null;
  render();
}

function toggle() {
  running ? stop() : start();
}

function reset() {
  stop();
  remaining = total;
  render();
}

function beep() {
  if (!settings.sound) return;
  try {
    const ctx = new (window.AudioContext || window.webkitAudioContext)();
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = 880;
    gain.gain.setValueAtTime(0.2, ctx.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + 0.8);
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.8);
  } catch (e) {
    console.warn('No audio available', e);
  }
}

function complete() {
  stop();
  beep();
  if (mode === 'focus') {
    completedFocus++;
    creditActiveTask();
    const longBreak = completedFocus % settings.interval === 0;
    setMode(longBreak ? 'long' : 'short', settings.autoStart);
  } else {
    setMode('focus', false);
  }
}

function skip() {
  if (mode === 'focus') {
    setMode(completedFocus % settings.interval === settings.interval - 1 ? 'long' : 'short');
  } else {
    setMode('focus');
  }
}

// ----- Tasks -----
function saveTasks() {
  localStorage.setItem('focusTasks', JSON.stringify(tasks));
}

function creditActiveTask() {
  const task = tasks.find(t => t.id === activeTaskId);
  if (!task) return;
  task.spent++;
  if (task.spent >= task.estimate) task.done = true;
  saveTasks();
  renderTasks();
}

function renderTasks() {
  const list = document.getElementById('taskList');
  list.innerHTML = '';
  tasks.forEach(task => {
    const li = document.createElement('li');
    li.className = (task.id === activeTaskId ? 'active ' : '') + (task.done ? 'done' : '');
    li.innerHTML = `<input type="checkbox" ${task.done ? 'checked' : ''} aria-label="Done">
      <span></span><small class="count">${task.spent}/${task.estimate}</small>
      <button type="button" aria-label="Delete task">🗑</button>`;
    li.querySelector('span').textContent = task.title;
    li.addEventListener('click', () => { activeTaskId = task.id; renderTasks(); });
    li.querySelector('input').addEventListener('click', (e) => {
      e.stopPropagation();
      task.done = e.target.checked;
      saveTasks();
      renderTasks();
    });
    li.querySelector('button').addEventListener('click', (e) => {
      e.stopPropagation();
      tasks = tasks.filter(t => t.id !== task.id);
      if (activeTaskId === task.id) activeTaskId = tasks.length ? tasks[0].id : null;
      saveTasks();
      renderTasks();
    });
    list.appendChild(li);
  });
  const left = tasks.filter(t => !t.done).reduce((n, t) => n + Math.max(0, t.estimate - t.spent), 0);
  const finish = new Date(Date.now() + left * (settings.focus + settings.short) * 60000);
  document.getElementById('taskSummary').textContent = tasks.length
    ? `${left} pomodoro${left === 1 ? '' : 's'} left · finish at ${finish.toTimeString().slice(0, 5)}`
    : 'No tasks yet.';
}

document.getElementById('taskForm').addEventListener('submit', (e) => {
  e.preventDefault();
  const input = document.getElementById('taskInput');
  const title = input.value.trim();
  if (!title) return;
  const estimate = Math.min(10, Math.max(1, parseInt(document.getElementById('taskEst').value, 10) || 1));
  const task = { id: Date.now() + Math.random(), title, estimate, spent: 0, done: false };
  tasks.push(task);
  if (!activeTaskId) activeTaskId = task.id;
  input.value = '';
  saveTasks();
  renderTasks();
});

// ----- Settings dialog -----
const dialog = document.getElementById('settingsDialog');
const settingsForm = document.getElementById('settingsForm');

function openSettings() {
  const f = settingsForm.elements;
  ['focus', 'short', 'long', 'interval'].forEach(k => { f[k].value = settings[k]; });
  f.autoStart.checked = settings.autoStart;
  f.sound.checked = settings.sound;
  document.getElementById('settingsError').textContent = '';
  dialog.showModal();
}

function readSettings() {
  const f = settingsForm.elements;
  const next = {
    focus: Number(f.focus.value), short: Number(f.short.value), long: Number(f.long.value),
    interval: Number(f.interval.value), autoStart: f.autoStart.checked, sound: f.sound.checked
  };
  for (const key of ['focus', 'short', 'long', 'interval']) {
    const input = f[key];
    if (!Number.isInteger(next[key]) || next[key] < Number(input.min) || next[key] > Number(input.max)) {
      return { error: `${input.parentElement.textContent.trim().split(' (')[0]} must be between ${input.min} and ${input.max}.` };
    }
  }
  return { value: next };
}

document.getElementById('saveSettings').addEventListener('click', (e) => {
  const result = readSettings();
  if (result.error) {
    e.preventDefault();
    document.getElementById('settingsError').textContent = result.error;
    return;
  }
  settings = result.value;
  localStorage.setItem('focusSettings', JSON.stringify(settings));
  if (!running) setMode(mode);
  renderTasks();
});

startBtn.addEventListener('click', toggle);
document.getElementById('resetBtn').addEventListener('click', reset);
document.getElementById('skipBtn').addEventListener('click', skip);
document.getElementById('settingsBtn').addEventListener('click', openSettings);
document.querySelectorAll('.mode').forEach(b => b.addEventListener('click', () => setMode(b.dataset.mode)));
document.addEventListener('keydown', (e) => {
  if (e.target.tagName === 'INPUT' || dialog.open) return;
  if (e.code === 'Space') { e.preventDefault(); toggle(); }
  else if (e.key === 'r') reset();
  else if (e.key === 's') skip();
});
window.addEventListener('beforeunload', (e) => {
  if (running) { e.preventDefault(); e.returnValue = ''; }
});

render();
renderTasks();
