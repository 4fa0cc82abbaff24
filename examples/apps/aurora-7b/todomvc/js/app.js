(function () {
  'use strict';
  var ENTER_KEY = 'Enter';
  var ESCAPE_KEY = 'Escape';
  var todos = window.TodoStore.load();
  var filter = 'all';

  var $ = function (sel) { return document.querySelector(sel); };
  var input = $('.new-todo');
  var list = $('.todo-list');
  var main = $('.main');
  var footer = $('.footer');
  var toggleAll = $('.toggle-all');
  var count = $('.todo-count');
  var clear = $('.clear-completed');

  function nextId() {
    return todos.reduce(function (max, t) { return Math.max(max, t.id); }, 0) + 1;
  }

  function visible(todo) {
    if (filter === 'active') return !todo.completed;
    if (filter === 'completed') return todo.completed;
    return true;
  }

  function commit() {
    window.TodoStore.save(todos);
    render();
  }

  function itemFor(todo) {
    var li = document.createElement('li');
    li.dataset.id = todo.id;
    if (todo.completed) li.classList.add('completed');
    var view = document.createElement('div');
    view.className = 'view';
    var box = document.createElement('input');
    box.className = 'toggle';
    box.type = 'checkbox';
    box.checked = todo.completed;
    box.setAttribute('aria-label', 'Complete ' + todo.title);
    var label = document.createElement('label');
    label.textContent = todo.title;
    var destroy = document.createElement('button');
    destroy.className = 'destroy';
    destroy.type = 'button';
    destroy.setAttribute('aria-label', 'Delete ' + todo.title);
    destroy.textContent = '×';
    var edit = document.createElement('input');
    edit.className = 'edit';
    edit.value = todo.title;
    edit.setAttribute('aria-label', 'Edit ' + todo.title);
    view.append(box, label, destroy);
    li.append(view, edit);

    box.addEventListener('change', function () { todo.completed = box.checked; commit(); });
    destroy.addEventListener('click', function () { remove(todo); });
    label.addEventListener('dblclick', function () {
      li.classList.add('editing');
      edit.focus();
      edit.setSelectionRange(edit.value.length, edit.value.length);
    });
    var done = false;
    function finish(save) {
      if (done) return;
      done = true;
      if (!save) { render(); return; }
      var title = edit.value.trim();
      if (title) { todo.title = title; commit(); } else { remove(todo); }
    }
    edit.addEventListener('keydown', function (e) {
      if (e.key === ENTER_KEY) finish(true);
      if (e.key === ESCAPE_KEY) finish(false);
    });
    edit.addEventListener('blur', function () { finish(true); });
    return li;
  }

  function remove(todo) {
    todos = todos.filter(function (t) { return t !== todo; });
    commit();
  }

  function render() {
    list.replaceChildren.apply(list, todos.filter(visible).map(itemFor));
    var active = todos.filter(function (t) { return !t.completed; }).length;
    var completed = todos.length - active;
    main.hidden = footer.hidden = todos.length === 0;
    toggleAll.checked = todos.length > 0 && active === 0;
    count.innerHTML = '<strong>' + active + '</strong> ' + (active === 1 ? 'item' : 'items') + ' left';
    clear.hidden = completed === 0;
    document.querySelectorAll('.filters a').forEach(function (a) {
      a.classList.toggle('selected', a.getAttribute('href') === '#/' + (filter === 'all' ? '' : filter));
    });
  }

  function route() {
    var hash = window.location.hash.replace(/^#!?\/?/, '');
    filter = hash === 'active' || hash === 'completed' ? hash : 'all';
    render();
  }

  input.addEventListener('keydown', function (e) {
    if (e.key !== ENTER_KEY) return;
    var title = input.value.trim();
    if (!title) return;
    todos.push({ id: nextId(), title: title, completed: false });
    input.value = '';
    commit();
  });
  toggleAll.addEventListener('change', function () {
    todos.forEach(function (t) { t.completed = toggleAll.checked; });
    commit();
  });
  clear.addEventListener('click', function () {
    todos = todos.filter(function (t) { return !t.completed; });
    commit();
  });
  window.addEventListener('hashchange', route);
  route();
})();
