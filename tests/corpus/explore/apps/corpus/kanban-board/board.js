/* Sprint Board — a Kanban board with drag and drop, a card editor and filters. */
const STATUSES = ['todo', 'doing', 'review', 'done'];
const STORAGE_KEY = 'kanban-cards';
const modal = document.getElementById('cardModal');
const form = document.getElementById('cardForm');
let cards = loadCards();
let editingId = null;
let draggedId = null;
let toastTimer;

function defaultCards() {
  return [
    { id: uid(), title: 'Design login page', description: 'Wireframes for the new login flow', priority: 'high', status: 'todo', due: '', assignee: 'Maya' },
    { id: uid(), title: 'Set up CI pipeline', description: '', priority: 'medium', status: 'doing', due: '', assignee: 'Leo' },
    { id: uid(), title: 'Write API docs', description: 'Endpoints for v2', priority: 'low', status: 'review', due: '2020-01-15', assignee: '' },
    { id: uid(), title: 'Kick-off meeting', description: '', priority: 'medium', status: 'done', due: '', assignee: 'Team' }
  ];
}

function uid() {
  return 'c' + Math.random().toString(36).slice(2, 9);
}

function loadCards() {
  try {
    const saved = JSON.parse(localStorage.getItem(STORAGE_KEY));
    if (Array.isArray(saved)) return saved;
  } catch (e) {
    console.error('Could not read saved cards', e);
  }
  return defaultCards();
}

function saveCards() {
  localStorage.setItem(STORAGE_KEY, JSON.stringify(cards));
}

function showToast(text) {
  const toast = document.getElementById('toast');
  toast.textContent = text;
  toast.classList.add('show');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => toast.classList.remove('show'), 2000);
}

function isOverdue(card) {
  if (!card.due || card.status === 'done') return false;
  return new Date(card.due + 'T23:59:59') < new Date();
}

function matchesFilter(card) {
  const text = document.getElementById('filterText').value.trim().toLowerCase();
  const priority = document.getElementById('filterPriority').value;
  if (priority !== 'all' && card.priority !== priority) return false;
  if (text && !(card.title + ' ' + card.description + ' ' + card.assignee).toLowerCase().includes(text)) return false;
  return true;
}

function cardElement(card) {
  const el = document.createElement('article');
  el.className = 'card';
  el.draggable = true;
  el.dataset.id = card.id;
  const index = STATUSES.indexOf(card.status);
  el.innerHTML = `
    <h3>${escapeHtml(card.title)}</h3>
    ${card.description ? `<p>${escapeHtml(card.description)}</p>` : ''}
    <div class="meta">
      <span class="priority ${card.priority}">${card.priority}</span>
      <span class="${isOverdue(card) ? 'overdue' : ''}">${card.due ? '📅 ' + card.due : ''}</span>
      <span>${card.assignee ? '👤 ' + escapeHtml(card.assignee) : ''}</span>
    </div>
    <div class="card-move">
      ${index > 0 ? '<button type="button" data-move="-1" aria-label="Move left">◀</button>' : ''}
      ${index < STATUSES.length - 1 ? '<button type="button" data-move="1" aria-label="Move right">▶</button>' : ''}
    </div>`;
  el.addEventListener('dragstart', onDragStart);
  el.addEventListener('dragend', onDragEnd);
  el.addEventListener('dblclick', () => openEditor(card.id));
  el.querySelectorAll('[data-move]').forEach(btn => btn.addEventListener('click', (e) => {
    e.stopPropagation();
    moveCard(card.id, STATUSES[index + Number(btn.dataset.move)]);
  }));
  return el;
}

function escapeHtml(s) {
  const div = document.createElement('div');
  div.textContent = s;
  return div.innerHTML;
}

function render() {
  STATUSES.forEach(status => {
    const column = document.querySelector(`.column[data-status="${status}"]`);
    const list = column.querySelector('.cards');
    list.innerHTML = '';
    const inColumn = cards.filter(c => c.status === status);
    inColumn.filter(matchesFilter).forEach(card => list.appendChild(cardElement(card)));
    column.querySelector('.count').textContent = `(${inColumn.length})`;
    const limit = Number(column.dataset.limit || Infinity);
    column.classList.toggle('over-limit', inColumn.length > limit);
  });
}

function moveCard(id, status) {
  const card = cards.find(c => c.id === id);
  if (!card || card.status === status) return;
  const column = document.querySelector(`.column[data-status="${status}"]`);
  const limit = Number(column.dataset.limit || Infinity);
  if (cards.filter(c => c.status === status).length >= limit) {
    showToast(`"${column.querySelector('h2').firstChild.textContent.trim()}" is over its WIP limit`);
  }
  card.status = status;
  if (status === 'done') showToast(`🎉 "${card.title}" is done!`);
  saveCards();
  render();
}

// ----- Drag and drop -----
function onDragStart(e) {
  draggedId = e.currentTarget.dataset.id;
  e.currentTarget.classList.add('dragging');
  e.dataTransfer.effectAllowed = 'move';
  e.dataTransfer.setData('text/plain', draggedId);
}

function onDragEnd(e) {
  e.currentTarget.classList.remove('dragging');
  document.querySelectorAll('.cards').forEach(l => l.classList.remove('drag-over'));
  draggedId = null;
}

document.querySelectorAll('.cards').forEach(list => {
  list.addEventListener('dragover', (e) => {
    e.preventDefault();
    e.dataTransfer.dropEffect = 'move';
    list.classList.add('drag-over');
  });
  list.addEventListener('dragleave', () => list.classList.remove('drag-over'));
  list.addEventListener('drop', (e) => {
    e.preventDefault();
    list.classList.remove('drag-over');
    const id = e.dataTransfer.getData('text/plain') || draggedId;
    moveCard(id, list.dataset.status);
  });
});

// ----- Editor modal -----
function openEditor(id) {
  editingId = id || null;
  form.reset();
  document.getElementById('formError').textContent = '';
  document.getElementById('modalTitle').textContent = id ? 'Edit card' : 'New card';
  document.getElementById('deleteCardBtn').classList.toggle('hidden', !id);
  if (id) {
    const card = cards.find(c => c.id === id);
    form.elements.title.value = card.title;
    form.elements.description.value = card.description;
    form.elements.priority.value = card.priority;
    form.elements.due.value = card.due;
    form.elements.assignee.value = card.assignee;
  }
  modal.classList.remove('hidden');
  form.elements.title.focus();
}

function closeEditor() {
  modal.classList.add('hidden');
  editingId = null;
}

form.addEventListener('submit', (e) => {
  e.preventDefault();
  const title = form.elements.title.value.trim();
  if (title.length < 3) {
    document.getElementById('formError').textContent = 'The title needs at least 3 characters.';
    return;
  }
  const data = {
    title,
    description: form.elements.description.value.trim(),
    priority: form.elements.priority.value,
    due: form.elements.due.value,
    assignee: form.elements.assignee.value.trim()
  };
  if (editingId) {
    Object.assign(cards.find(c => c.id === editingId), data);
    showToast('Card updated');
  } else {
    cards.push({ id: uid(), status: 'todo', ...data });
    showToast('Card added to To do');
  }
  saveCards();
  closeEditor();
  render();
});

document.getElementById('deleteCardBtn').addEventListener('click', () => {
  if (!editingId) return;
  if (!confirm('Delete this card?')) return;
  cards = cards.filter(c => c.id !== editingId);
  saveCards();
  closeEditor();
  render();
  showToast('Card deleted');
});

document.getElementById('cancelBtn').addEventListener('click', closeEditor);
modal.addEventListener('click', (e) => { if (e.target === modal) closeEditor(); });
document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && !modal.classList.contains('hidden')) closeEditor();
  if (e.key === 'n' && modal.classList.contains('hidden') && document.activeElement.tagName !== 'INPUT') {
    e.preventDefault();
    openEditor(null);
  }
});

document.getElementById('addCardBtn').addEventListener('click', () => openEditor(null));
document.getElementById('clearDoneBtn').addEventListener('click', () => {
  const done = cards.filter(c => c.status === 'done').length;
  if (done === 0) { showToast('Nothing to clear'); return; }
  cards = cards.filter(c => c.status !== 'done');
  saveCards();
  render();
  showToast(`Removed ${done} finished card${done === 1 ? '' : 's'}`);
});
document.getElementById('filterText').addEventListener('input', render);
document.getElementById('filterPriority').addEventListener('change', render);

render();
