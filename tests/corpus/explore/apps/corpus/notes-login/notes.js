// Quill Notes — a Markdown notebook behind a (pretend) login.
const $ = (id) => document.getElementById(id);
let user = null;
let notes = [];
let selectedId = null;
let activeTag = null;
let saveTimer = null;

// ===== Auth =====
function currentSession() {
  return sessionStorage.getItem('quillUser') || localStorage.getItem('quillUser');
}

function login(event) {
  event.preventDefault();
  const name = $('username').value.trim();
  const password = $('password').value;
  if (!name || !password) {
    $('loginError').textContent = 'Please enter a username and a password.';
    return;
  }
  if (password.length < 4) {
    $('loginError').textContent = 'Passwords have at least 4 characters.';
    return;
  }
  $('loginError').textContent = '';
  (document.getElementById('remember').checked ? localStorage : sessionStorage).setItem('quillUser', name);
  startApp(name);
}

function logout() {
  sessionStorage.removeItem('quillUser');
  localStorage.removeItem('quillUser');
  user = null;
  selectedId = null;
  $('appView').classList.add('hidden');
  $('loginView').classList.remove('hidden');
  $('loginForm').reset();
}

function startApp(name) {
  user = name;
  $('userName').textContent = name;
  $('loginView').classList.add('hidden');
  $('appView').classList.remove('hidden');
  notes = loadNotes();
  renderList();
  showEditor(null);
}

// ===== Storage =====
function storageKey() {
  return 'quillNotes:' + user;
}

function loadNotes() {
  const saved = localStorage.getItem(storageKey());
  if (saved) {
    try { return JSON.parse(saved); } catch (e) { console.error('Broken notes storage', e); }
  }
  return [
    { id: 1, title: 'Welcome to Quill', body: '# Hello!\nThis is **Markdown**. Add #tags anywhere.\n\n- lists\n- *emphasis*\n\n#welcome', color: 'yellow', pinned: true, updated: Date.now() },
    { id: 2, title: 'Groceries', body: '- eggs\n- bread\n- coffee #shopping', color: 'green', pinned: false, updated: Date.now() - 3600e3 }
  ];
}

function persist() {
  localStorage.setItem(storageKey(), JSON.stringify(notes));
  $('saveStatus').textContent = 'Saved ' + new Date().toLocaleTimeString();
}

// ===== Helpers =====
function tagsOf(note) {
  return [...new Set((note.body.match(/#([a-z0-9_-]+)/gi) || []).map(t => t.slice(1).toLowerCase()))];
}

function escapeHtml(s) {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function markdown(text) {
  const lines = escapeHtml(text).split('\n');
  let html = '';
  let inList = false;
  lines.forEach(line => {
    const inline = (s) => s.replace(/\*\*(.+?)\*\*/g, '<strong>$1</strong>').replace(/\*(.+?)\*/g, '<em>$1</em>')
      .replace(/`(.+?)`/g, '<code>$1</code>').replace(/#([a-z0-9_-]+)/gi, '<span class="tag">#$1</span>');
    if (/^- /.test(line)) {
      if (!inList) { html += '<ul>'; inList = true; }
      html += '<li>' + inline(line.slice(2)) + '</li>';
      return;
    }
    if (inList) { html += '</ul>'; inList = false; }
    const heading = /^(#{1,3}) (.*)$/.exec(line);
    if (heading) html += `<h${heading[1].length}>${inline(heading[2])}</h${heading[1].length}>`;
    else if (line.trim()) html += '<p>' + inline(line) + '</p>';
  });
  if (inList) html += '</ul>';
  return html;
}

function timeAgo(ts) {
  const minutes = Math.round((Date.now() - ts) / 60000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return minutes + ' min ago';
  const hours = Math.round(minutes / 60);
  return hours < 24 ? hours + ' h ago' : Math.round(hours / 24) + ' d ago';
}

// ===== Rendering =====
function visibleNotes() {
  const term = $('searchBox').value.trim().toLowerCase();
  return notes
    .filter(n => !term || (n.title + ' ' + n.body).toLowerCase().includes(term))
    .filter(n => !activeTag || tagsOf(n).includes(activeTag))
    .sort((a, b) => (b.pinned - a.pinned) || (b.updated - a.updated));
}

function renderTags() {
  const all = [...new Set(notes.flatMap(tagsOf))].sort();
  const box = $('tagFilter');
  box.innerHTML = '';
  all.forEach(tag => {
    const b = document.createElement('button');
    b.className = 'tag' + (tag === activeTag ? ' active' : '');
    b.textContent = '#' + tag;
    b.addEventListener('click', () => { activeTag = activeTag === tag ? null : tag; renderList(); });
    box.appendChild(b);
  });
}

function renderList() {
  renderTags();
  const list = $('noteList');
  list.innerHTML = '';
  const items = visibleNotes();
  if (!items.length) {
    list.innerHTML = '<li><small>No notes match.</small></li>';
    return;
  }
  items.forEach(note => {
    const li = document.createElement('li');
    li.className = note.color + (note.id === selectedId ? ' selected' : '');
    li.innerHTML = `<strong></strong>${note.pinned ? ' 📌' : ''}<small>${timeAgo(note.updated)}</small>`;
    li.querySelector('strong').textContent = note.title || 'Untitled';
    li.addEventListener('click', () => showEditor(note.id));
    list.appendChild(li);
  });
}

function showEditor(id) {
  selectedId = id;
  const note = notes.find(n => n.id === id);
  $('emptyState').classList.toggle('hidden', Boolean(note));
  $('editorPane').classList.toggle('hidden', !note);
  if (note) {
    $('noteTitle').value = note.title;
    $('noteBody').value = note.body;
    $('noteColor').value = note.color;
    $('pinBtn').style.opacity = note.pinned ? 1 : 0.4;
    $('preview').classList.add('hidden');
    $('noteBody').classList.remove('hidden');
    $('previewBtn').textContent = 'Preview';
  }
  renderList();
}

// ===== Editing =====
function selected() {
  return notes.find(n => n.id === selectedId);
}

function scheduleSave() {
  const note = selected();
  if (!note) return;
  note.title = $('noteTitle').value;
  note.body = $('noteBody').value;
  note.updated = Date.now();
  $('saveStatus').textContent = 'Saving…';
  clearTimeout(saveTimer);
  saveTimer = setTimeout(() => { persist(); renderList(); }, 600);
}

function newNote() {
  const note = { id: Date.now(), title: '', body: '', color: 'white', pinned: false, updated: Date.now() };
  notes.push(note);
  activeTag = null;
  persist();
  showEditor(note.id);
  $('noteTitle').focus();
}

function deleteNote() {
  const note = selected();
  if (!note) return;
  if (note.body.trim() && !confirm(`Delete "${note.title || 'Untitled'}"?`)) return;
  notes = notes.filter(n => n.id !== note.id);
  persist();
  showEditor(null);
}

function togglePin() {
  const note = selected();
  note.pinned = !note.pinned;
  $('pinBtn').style.opacity = note.pinned ? 1 : 0.4;
  persist();
  renderList();
}

function togglePreview() {
  const showing = !$('preview').classList.contains('hidden');
  if (!showing) $('preview').innerHTML = markdown($('noteBody').value);
  $('preview').classList.toggle('hidden', showing);
  $('noteBody').classList.toggle('hidden', !showing);
  $('previewBtn').textContent = showing ? 'Preview' : 'Edit';
}

$('loginForm').addEventListener('submit', login);
$('logoutBtn').addEventListener('click', logout);
$('newNoteBtn').addEventListener('click', newNote);
$('deleteBtn').addEventListener('click', deleteNote);
$('pinBtn').addEventListener('click', togglePin);
$('previewBtn').addEventListener('click', togglePreview);
$('noteTitle').addEventListener('input', scheduleSave);
$('noteBody').addEventListener('input', scheduleSave);
$('noteColor').addEventListener('change', () => { selected().color = $('noteColor').value; persist(); renderList(); });
$('searchBox').addEventListener('input', renderList);
document.addEventListener('keydown', (e) => {
  if (!user) return;
  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'n') { e.preventDefault(); newNote(); }
  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'p' && selected()) { e.preventDefault(); togglePreview(); }
});

const existing = currentSession();
if (existing) startApp(existing);
