// Sketchpad — a small paint program with shapes, fill, undo/redo and shortcuts.
const canvas = document.getElementById('canvas');
const ctx = canvas.getContext('2d', { willReadFrequently: true });
const colorInput = document.getElementById('color');
const sizeInput = document.getElementById('size');
const filledInput = document.getElementById('filled');
const undoBtn = document.getElementById('undo');
const redoBtn = document.getElementById('redo');
const MAX_HISTORY = 30;

let tool = 'brush';
let drawing = false;
let start = null;
let last = null;
let snapshot = null;
let undoStack = [];
let redoStack = [];

function clearCanvas() {
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
}

function pushHistory() {
  undoStack.push(ctx.getImageData(0, 0, canvas.width, canvas.height));
  if (undoStack.length > MAX_HISTORY) undoStack.shift();
  redoStack = [];
  updateHistoryButtons();
}

function undo() {
  if (!undoStack.length) return;
  redoStack.push(ctx.getImageData(0, 0, canvas.width, canvas.height));
  ctx.putImageData(undoStack.pop(), 0, 0);
  updateHistoryButtons();
  setStatus('Undone');
}

function redo() {
  if (!redoStack.length) return;
  undoStack.push(ctx.getImageData(0, 0, canvas.width, canvas.height));
  ctx.putImageData(redoStack.pop(), 0, 0);
  updateHistoryButtons();
  setStatus('Redone');
}

function updateHistoryButtons() {
  undoBtn.disabled = undoStack.length === 0;
  redoBtn.disabled = redoStack.length === 0;
}

function setStatus(text) {
  document.getElementById('status').textContent = text || `${tool[0].toUpperCase() + tool.slice(1)} · ${sizeInput.value}px`;
}

function selectTool(name) {
  tool = name;
  document.querySelectorAll('.tool').forEach(b => b.classList.toggle('active', b.dataset.tool === name));
  canvas.style.cursor = name === 'fill' ? 'cell' : 'crosshair';
  setStatus();
}

function position(e) {
  const rect = canvas.getBoundingClientRect();
  return {
    x: Math.round((e.clientX - rect.left) * (canvas.width / rect.width)),
    y: Math.round((e.clientY - rect.top) * (canvas.height / rect.height))
  };
}

function strokeStyle() {
  ctx.lineCap = 'round';
  ctx.lineJoin = 'round';
  ctx.lineWidth = Number(sizeInput.value);
  ctx.strokeStyle = tool === 'eraser' ? '#ffffff' : colorInput.value;
  ctx.fillStyle = colorInput.value;
}

function drawShape(from, to) {
  strokeStyle();
  ctx.beginPath();
  if (tool === 'line') {
    ctx.moveTo(from.x, from.y);
    ctx.lineTo(to.x, to.y);
    ctx.stroke();
    return;
  }
  if (tool === 'rect') {
    ctx.rect(from.x, from.y, to.x - from.x, to.y - from.y);
  } else if (tool === 'circle') {
    const r = Math.hypot(to.x - from.x, to.y - from.y);
    ctx.arc(from.x, from.y, r, 0, Math.PI * 2);
  }
  if (filledInput.checked) ctx.fill(); else ctx.stroke();
}

function hexToRgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function floodFill(x, y) {
  const image = ctx.getImageData(0, 0, canvas.width, canvas.height);
  const data = image.data;
  const w = canvas.width, h = canvas.height;
  const at = (px, py) => (py * w + px) * 4;
  const target = data.slice(at(x, y), at(x, y) + 4);
  const [r, g, b] = hexToRgb(colorInput.value);
  if (target[0] === r && target[1] === g && target[2] === b) return;
  const same = (i) => Math.abs(data[i] - target[0]) < 24 && Math.abs(data[i + 1] - target[1]) < 24 && Math.abs(data[i + 2] - target[2]) < 24;
  const stack = [[x, y]];
  let painted = 0;
  while (stack.length && painted < w * h) {
    const [px, py] = stack.pop();
    if (px < 0 || py < 0 || px >= w || py >= h) continue;
    const i = at(px, py);
    if (!same(i)) continue;
    data[i] = r; data[i + 1] = g; data[i + 2] = b; data[i + 3] = 255;
    painted++;
    stack.push([px + 1, py], [px - 1, py], [px, py + 1], [px, py - 1]);
  }
  ctx.putImageData(image, 0, 0);
  setStatus(`Filled ${painted.toLocaleString()} pixels`);
}

canvas.addEventListener('pointerdown', (e) => {
  const p = position(e);
  pushHistory();
  if (tool === 'fill') {
    floodFill(p.x, p.y);
    return;
  }
  drawing = true;
  start = last = p;
  snapshot = ctx.getImageData(0, 0, canvas.width, canvas.height);
  canvas.setPointerCapture(e.pointerId);
  if (tool === 'brush' || tool === 'eraser') {
    strokeStyle();
    ctx.beginPath();
    ctx.arc(p.x, p.y, ctx.lineWidth / 2, 0, Math.PI * 2);
    ctx.fillStyle = ctx.strokeStyle;
    ctx.fill();
  }
});

canvas.addEventListener('pointermove', (e) => {
  if (!drawing) return;
  const p = position(e);
  if (tool === 'brush' || tool === 'eraser') {
    strokeStyle();
    ctx.beginPath();
    ctx.moveTo(last.x, last.y);
    ctx.lineTo(p.x, p.y);
    ctx.stroke();
    last = p;
  } else {
    ctx.putImageData(snapshot, 0, 0);
    drawShape(start, p);
  }
});

function endStroke() {
  drawing = false;
  snapshot = null;
}

canvas.addEventListener('pointerup', endStroke);
canvas.addEventListener('pointercancel', endStroke);

function save() {
  const link = document.createElement('a');
  link.download = 'sketch-' + new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-') + '.png';
  link.href = canvas.toDataURL('image/png');
  link.click();
  setStatus('Saved ' + link.download);
}

function clearAll() {
  if (!confirm('Clear the whole canvas?')) return;
  pushHistory();
  clearCanvas();
  setStatus('Canvas cleared');
}

document.querySelectorAll('.tool').forEach(b => b.addEventListener('click', () => selectTool(b.dataset.tool)));
document.querySelectorAll('.swatch').forEach(b => b.addEventListener('click', () => { colorInput.value = b.dataset.color; setStatus(); }));
sizeInput.addEventListener('input', () => { document.getElementById('sizeLabel').textContent = sizeInput.value; setStatus(); });
undoBtn.addEventListener('click', undo);
redoBtn.addEventListener('click', redo);
document.getElementById('clear').addEventListener('click', clearAll);
document.getElementById('save').addEventListener('click', save);

const SHORTCUTS = { b: 'brush', e: 'eraser', l: 'line', r: 'rect', c: 'circle', f: 'fill' };
document.addEventListener('keydown', (e) => {
  const key = e.key.toLowerCase();
  if (e.ctrlKey || e.metaKey) {
    if (key === 'z' && e.shiftKey) { e.preventDefault(); redo(); }
    else if (key === 'z') { e.preventDefault(); undo(); }
    else if (key === 'y') { e.preventDefault(); redo(); }
    else if (key === 's') { e.preventDefault(); save(); }
    return;
  }
  if (e.target.tagName === 'INPUT') return;
  if (SHORTCUTS[key]) selectTool(SHORTCUTS[key]);
  else if (key === '[') { sizeInput.value = Math.max(1, Number(sizeInput.value) - 2); sizeInput.dispatchEvent(new Event('input')); }
  else if (key === ']') { sizeInput.value = Math.min(40, Number(sizeInput.value) + 2); sizeInput.dispatchEvent(new Event('input')); }
});

clearCanvas();
setStatus();
