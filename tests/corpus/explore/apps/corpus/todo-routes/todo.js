// A TodoMVC-style app in plain JavaScript: add, toggle, edit, filter, persist.
(function () {
  'use strict';

  const ENTER = 'Enter';
  const ESCAPE = 'Escape';
  const STORAGE = 'todos-vanilla';

  const model = {
    todos: read(),
    lastDeleted: null,

    add(title) {
      this.todos.push({ id: Date.now() + Math.random(), title, completed: false });
      save(this.todos);
    },
    star(id) {
      const todo = this.find(id);
      todo.starred = !todo.starred;
      save(this.todos);
    },
    toggle(id) {
      const todo = this.find(id);
      todo.completed = !todo.completed;
      save(this.todos);
    },
    toggleAll(completed) {
      this.todos.forEach(t => { t.completed = completed; });
      save(this.todos);
    },
    rename(id, title) {
      this.find(id).title = title;
      save(this.todos);
    },
    remove(id) {
      const index = this.todos.findIndex(t => t.id === id);
      this.lastDeleted = { todo: this.todos[index], index };
      this.todos.splice(index, 1);
      save(this.todos);
    },
    undo() {
      if (!this.lastDeleted) return;
      this.todos.splice(this.lastDeleted.index, 0, this.lastDeleted.todo);
      this.lastDeleted = null;
      save(this.todos);
    },
    clearCompleted() {
      this.todos = this.todos.filter(t => !t.completed);
      save(this.todos);
    },
    find(id) {
      return this.todos.find(t => t.id === id);
    },
    active() { return this.todos.filter(t => !t.completed); },
    completed() { return this.todos.filter(t => t.completed); }
  };

  function read() {
    try {
      return JSON.parse(localStorage.getItem(STORAGE)) || [];
    } catch (e) {
      return [];
    }
  }

  function save(todos) {
    localStorage.setItem(STORAGE, JSON.stringify(todos));
  }

  const list = document.getElementById('todoList');
  const input = document.getElementById('newTodo');
  const toggleAll = document.getElementById('toggle-all');
  const main = document.getElementById('main');
  const footer = document.getElementById('footer');
  const undoBtn = document.getElementById('undoBtn');

  function currentFilter() {
    const route = location.hash.replace(/^#\/?/, '');
    return ['active', 'completed'].includes(route) ? route : 'all';
  }

  function sorted(todos) {
    const order = document.getElementById('sortOrder').value;
    const copy = todos.slice();
    if (order === 'alpha') copy.sort((a, b) => a.title.localeCompare(b.title));
    else if (order === 'starred') copy.sort((a, b) => Number(Boolean(b.starred)) - Number(Boolean(a.starred)));
    return copy;
  }

  function visible() {
    const filter = currentFilter();
    const term = document.getElementById('search').value.trim().toLowerCase();
    let todos = model.todos;
    if (filter === 'active') todos = model.active();
    if (filter === 'completed') todos = model.completed();
    if (term) todos = todos.filter(t => t.title.toLowerCase().includes(term));
    return sorted(todos);
  }

  function progressText() {
    const total = model.todos.length;
    if (total === 0) return '';
    const done = model.completed().length;
    const pct = Math.round((done / total) * 100);
    if (pct === 100) return 'All done! 🎉';
    return `${pct}% complete`;
  }

  function pluralize(count, word) {
    return count === 1 ? word : word + 's';
  }

  function todoItem(todo) {
    const li = document.createElement('li');
    li.dataset.id = todo.id;
    if (todo.completed) li.classList.add('completed');
    li.innerHTML = `
      <div class="view">
        <input class="toggle" type="checkbox" ${todo.completed ? 'checked' : ''} aria-label="Toggle">
        <label></label>
        <button class="star" aria-label="Star">${todo.starred ? '★' : '☆'}</button>
        <button class="destroy" aria-label="Delete">×</button>
      </div>`;
    li.querySelector('label').textContent = todo.title;
    li.querySelector('.toggle').addEventListener('change', () => { model.toggle(todo.id); render(); });
    li.querySelector('.destroy').addEventListener('click', () => { model.remove(todo.id); render(); });
    li.querySelector('.star').addEventListener('click', () => { model.star(todo.id); render(); });
    li.querySelector('label').addEventListener('dblclick', () => startEditing(li, todo));
    return li;
  }

  function startEditing(li, todo) {
    li.classList.add('editing');
    const edit = document.createElement('input');
    edit.className = 'edit';
    edit.value = todo.title;
    li.appendChild(edit);
    edit.focus();
    let done = false;
    const finish = (commit) => {
      if (done) return;
      done = true;
      const title = edit.value.trim();
      if (commit) {
        if (title) model.rename(todo.id, title);
        else model.remove(todo.id);
      }
      render();
    };
    edit.addEventListener('keydown', (e) => {
      if (e.key === ENTER) finish(true);
      else if (e.key === ESCAPE) finish(false);
    });
    edit.addEventListener('blur', () => finish(true));
  }

  function render() {
    list.innerHTML = '';
    visible().forEach(todo => list.appendChild(todoItem(todo)));
    const total = model.todos.length;
    const left = model.active().length;
    main.classList.toggle('hidden', total === 0);
    footer.classList.toggle('hidden', total === 0);
    toggleAll.checked = total > 0 && left === 0;
    document.getElementById('count').innerHTML = `<strong>${left}</strong> ${pluralize(left, 'item')} left`;
    document.getElementById('clearCompleted').classList.toggle('hidden', model.completed().length === 0);
    document.querySelectorAll('.filters a').forEach(a => a.classList.toggle('selected', a.dataset.filter === currentFilter()));
    undoBtn.disabled = !model.lastDeleted;
    document.getElementById('progress').textContent = progressText();
  }

  input.addEventListener('keydown', (e) => {
    if (e.key !== ENTER) return;
    const title = input.value.trim();
    if (title) {
      model.add(title);
      input.value = '';
      render();
    }
  });
  toggleAll.addEventListener('change', () => { model.toggleAll(toggleAll.checked); render(); });
  document.getElementById('clearCompleted').addEventListener('click', () => { model.clearCompleted(); render(); });
  undoBtn.addEventListener('click', () => { model.undo(); render(); });
  window.addEventListener('hashchange', render);
  document.getElementById('search').addEventListener('input', render);
  document.getElementById('sortOrder').addEventListener('change', render);
  document.addEventListener('keydown', (e) => {
    if (e.key === '/' && document.activeElement !== input) {
      e.preventDefault();
      document.getElementById('search').focus();
    }
  });
  render();
})();
