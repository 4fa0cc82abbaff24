// Persistence for the todo list: one JSON array under a TodoMVC-style key.
(function (window) {
  'use strict';
  var KEY = 'todos-vanilla-aurora';

  function load() {
    try {
      var items = JSON.parse(window.localStorage.getItem(KEY) || '[]');
      return Array.isArray(items) ? items.filter(function (t) { return t && typeof t.title === 'string'; }) : [];
    } catch (e) {
      return [];
    }
  }

  function save(items) {
    window.localStorage.setItem(KEY, JSON.stringify(items.map(function (t) {
      return { id: t.id, title: t.title, completed: !!t.completed };
    })));
  }

  window.TodoStore = { load: load, save: save };
})(window);
