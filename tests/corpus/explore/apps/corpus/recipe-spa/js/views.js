// Views render into <main id="view">. Each returns nothing; they read the Store.
const view = document.getElementById('view');

function esc(text) {
  return String(text).replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

function recipeCard(r) {
  const fav = Store.isFavorite(r.id);
  return `<article class="card">
    <div class="emoji">${r.emoji}</div>
    <h3><a href="#/recipes/${r.id}">${esc(r.title)}</a></h3>
    <p>${r.minutes} min · serves ${r.servings}</p>
    <button class="fav" data-id="${r.id}" aria-label="${fav ? 'Remove from' : 'Add to'} favorites">${fav ? '❤️' : '🤍'}</button>
  </article>`;
}

function bindFavButtons() {
  view.querySelectorAll('.fav').forEach(btn => btn.addEventListener('click', () => {
    Store.toggleFavorite(btn.dataset.id);
    Router.resolve();
  }));
}

function renderHome() {
  const quick = Store.all().filter(r => r.minutes <= 15);
  view.innerHTML = `
    <section class="hero">
      <h1>What are we cooking today?</h1>
      <p>${Store.all().length} recipes, ${Store.favorites().length} favorites.</p>
      <a class="primary" href="#/recipes">Browse recipes →</a>
    </section>
    <h2>Quick bites (15 minutes or less)</h2>
    <div class="grid">${quick.map(recipeCard).join('')}</div>
    <h2>Recipe of the day</h2>
    <div class="grid">${recipeCard(Store.recipeOfTheDay())}</div>`;
  bindFavButtons();
}

function renderList(params, query) {
  const term = (query.get('q') || '').toLowerCase();
  const tag = query.get('tag') || '';
  const sort = query.get('sort') || 'title';
  let items = Store.all().filter(r =>
    (!term || r.title.toLowerCase().includes(term) || r.ingredients.some(i => i.item.includes(term))) &&
    (!tag || r.tags.includes(tag)));
  items = items.sort((a, b) => sort === 'time' ? a.minutes - b.minutes : a.title.localeCompare(b.title));
  const tags = [...new Set(Store.all().flatMap(r => r.tags))].sort();
  view.innerHTML = `
    <h1>All recipes</h1>
    <div class="toolbar">
      <input id="search" type="search" placeholder="Search recipes or ingredients" value="${esc(term)}" aria-label="Search">
      <select id="sort" aria-label="Sort by">
        <option value="title" ${sort === 'title' ? 'selected' : ''}>A–Z</option>
        <option value="time" ${sort === 'time' ? 'selected' : ''}>Quickest first</option>
      </select>
    </div>
    <div class="tags">${tags.map(t => `<button class="tag ${t === tag ? 'active' : ''}" data-tag="${t}">${t}</button>`).join('')}</div>
    ${items.length ? `<div class="grid">${items.map(recipeCard).join('')}</div>` : '<p class="empty">No recipes match your search.</p>'}`;
  const update = (changes) => {
    const q = new URLSearchParams({ q: term, tag, sort, ...changes });
    [...q.keys()].forEach(k => { if (!q.get(k)) q.delete(k); });
    Router.go('recipes' + (q.toString() ? '?' + q : ''));
  };
  const search = document.getElementById('search');
  search.addEventListener('change', () => update({ q: search.value.trim() }));
  document.getElementById('sort').addEventListener('change', (e) => update({ sort: e.target.value }));
  view.querySelectorAll('.tag').forEach(b => b.addEventListener('click', () => update({ tag: b.dataset.tag === tag ? '' : b.dataset.tag })));
  bindFavButtons();
}

function scaled(qty, from, to) {
  const value = qty * to / from;
  return Number.isInteger(value) ? value : value.toFixed(1);
}

function renderDetail(params) {
  const recipe = Store.get(params.id);
  if (!recipe) { renderNotFound('recipes/' + params.id); return; }
  let servings = recipe.servings;
  const draw = () => {
    view.innerHTML = `
      <a href="#/recipes">← All recipes</a>
      <h1>${recipe.emoji} ${esc(recipe.title)}</h1>
      <p>${recipe.minutes} minutes · ${recipe.tags.join(', ')}</p>
      <div class="servings">Servings:
        <button id="less" aria-label="Fewer servings">−</button> <b>${servings}</b> <button id="more" aria-label="More servings">+</button>
      </div>
      <h2>Ingredients</h2>
      <ul>${recipe.ingredients.map(i => `<li><label><input type="checkbox" class="ing"> ${scaled(i.qty, recipe.servings, servings)} ${i.unit} ${esc(i.item)}</label></li>`).join('')}</ul>
      <button class="primary" id="addShopping">Add ingredients to shopping list</button>
      <h2>Method</h2>
      <ol>${recipe.steps.map(s => `<li>${esc(s)}</li>`).join('')}</ol>
      ${recipe.custom ? '<button id="deleteRecipe">Delete this recipe</button>' : ''}`;
    document.getElementById('less').addEventListener('click', () => { if (servings > 1) { servings--; draw(); } });
    document.getElementById('more').addEventListener('click', () => { if (servings < 24) { servings++; draw(); } });
    document.getElementById('addShopping').addEventListener('click', () => {
      Store.addToShopping(recipe.ingredients.map(i => `${scaled(i.qty, recipe.servings, servings)} ${i.unit} ${i.item}`.replace(/\s+/g, ' ')));
      Router.go('shopping');
    });
    const del = document.getElementById('deleteRecipe');
    if (del) del.addEventListener('click', () => { Store.remove(recipe.id); Router.go('recipes'); });
  };
  draw();
}

function renderFavorites() {
  const favs = Store.favorites();
  view.innerHTML = `<h1>Your favorites</h1>` + (favs.length
    ? `<div class="grid">${favs.map(recipeCard).join('')}</div>`
    : '<p class="empty">No favorites yet. Tap 🤍 on a recipe to save it here.</p>');
  bindFavButtons();
}

function renderAdd() {
  view.innerHTML = `
    <h1>Add your own recipe</h1>
    <form class="form" id="addForm" novalidate>
      <label>Title <input name="title" required maxlength="60"></label>
      <label>Emoji <select name="emoji"><option>🍲</option><option>🥘</option><option>🍰</option><option>🥪</option></select></label>
      <label>Minutes <input name="minutes" type="number" min="1" max="600" value="30"></label>
      <label>Servings <input name="servings" type="number" min="1" max="24" value="2"></label>
      <label>Ingredients (one per line, e.g. "200 g rice") <textarea name="ingredients" rows="4"></textarea></label>
      <label>Steps (one per line) <textarea name="steps" rows="4"></textarea></label>
      <label>Tags (comma separated) <input name="tags" placeholder="dinner, quick"></label>
      <p class="error" id="formError"></p>
      <button class="primary" type="submit">Save recipe</button>
    </form>`;
  document.getElementById('addForm').addEventListener('submit', (e) => {
    e.preventDefault();
    const data = new FormData(e.target);
    const error = validateRecipe(data);
    if (error) { document.getElementById('formError').textContent = error; return; }
    const id = Store.addCustom(data);
    Router.go('recipes/' + id);
  });
}

function validateRecipe(data) {
  if (!data.get('title').trim()) return 'Please give your recipe a title.';
  const minutes = Number(data.get('minutes'));
  if (!(minutes >= 1 && minutes <= 600)) return 'Minutes must be between 1 and 600.';
  if (!data.get('ingredients').trim()) return 'Add at least one ingredient.';
  if (!data.get('steps').trim()) return 'Add at least one step.';
  return null;
}

function renderShopping() {
  const items = Store.shopping();
  view.innerHTML = `<h1>Shopping list</h1>
    ${items.length ? `<ul>${items.map((it, i) => `<li><label><input type="checkbox" data-i="${i}" ${it.done ? 'checked' : ''}> ${esc(it.text)}</label></li>`).join('')}</ul>
      <button id="clearDone">Remove checked items</button>` : '<p class="empty">Nothing to buy. Add ingredients from a recipe.</p>'}`;
  view.querySelectorAll('input[type=checkbox]').forEach(cb => cb.addEventListener('change', () => { Store.toggleShopping(Number(cb.dataset.i)); }));
  const clear = document.getElementById('clearDone');
  if (clear) clear.addEventListener('click', () => { Store.clearDoneShopping(); renderShopping(); });
}

function renderAbout() {
  view.innerHTML = `<h1>About Spoonful</h1>
    <p>Spoonful keeps your recipes, favorites and shopping list in this browser — no account needed.</p>
    <button id="resetAll">Reset all data</button>`;
  document.getElementById('resetAll').addEventListener('click', () => {
    if (confirm('Delete your recipes, favorites and shopping list?')) { Store.reset(); Router.go(''); }
  });
}

function renderNotFound(path) {
  view.innerHTML = `<h1>Page not found</h1><p>There is nothing at <code>#/${esc(path)}</code>.</p><a href="#/">Go home</a>`;
}
