// Store (localStorage-backed) and the route table.
const Store = (() => {
  const KEY = 'spoonful.v1';
  let state = load();

  function load() {
    try {
      const saved = JSON.parse(localStorage.getItem(KEY));
      if (saved && Array.isArray(saved.custom)) return saved;
    } catch (e) { /* corrupted storage: start fresh */ }
    return { custom: [], favorites: [], shopping: [] };
  }
  function save() { localStorage.setItem(KEY, JSON.stringify(state)); updateBadge(); }

  function slug(title) {
    const base = title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'recipe';
    let id = base, n = 2;
    while (all().some(r => r.id === id)) id = `${base}-${n++}`;
    return id;
  }
  function parseIngredient(line) {
    const m = /^(\d+(?:\.\d+)?)\s*(g|kg|ml|l|tbsp|tsp|cups?)?\s+(.+)$/i.exec(line.trim());
    return m ? { qty: Number(m[1]), unit: m[2] || '', item: m[3] } : { qty: 1, unit: '', item: line.trim() };
  }
  function all() { return BUILT_IN_RECIPES.concat(state.custom); }

  return {
    all,
    get: (id) => all().find(r => r.id === id),
    isFavorite: (id) => state.favorites.includes(id),
    favorites: () => all().filter(r => state.favorites.includes(r.id)),
    toggleFavorite(id) {
      state.favorites = state.favorites.includes(id) ? state.favorites.filter(f => f !== id) : [...state.favorites, id];
      save();
    },
    recipeOfTheDay() {
      const day = Math.floor(Date.now() / 86400000);
      return all()[day % all().length];
    },
    addCustom(data) {
      const recipe = {
        id: slug(data.get('title')), title: data.get('title').trim(), emoji: data.get('emoji'), custom: true,
        minutes: Number(data.get('minutes')), servings: Number(data.get('servings')) || 1,
        tags: data.get('tags').split(',').map(t => t.trim().toLowerCase()).filter(Boolean),
        ingredients: data.get('ingredients').split('\n').filter(l => l.trim()).map(parseIngredient),
        steps: data.get('steps').split('\n').map(s => s.trim()).filter(Boolean)
      };
      state.custom.push(recipe);
      save();
      return recipe.id;
    },
    remove(id) {
      state.custom = state.custom.filter(r => r.id !== id);
      state.favorites = state.favorites.filter(f => f !== id);
      save();
    },
    shopping: () => state.shopping,
    addToShopping(lines) { lines.forEach(text => state.shopping.push({ text, done: false })); save(); },
    toggleShopping(i) { state.shopping[i].done = !state.shopping[i].done; save(); },
    clearDoneShopping() { state.shopping = state.shopping.filter(s => !s.done); save(); },
    reset() { state = { custom: [], favorites: [], shopping: [] }; save(); }
  };
})();

function updateBadge() {
  document.getElementById('favCount').textContent = Store.favorites().length;
}

function highlightNav(pattern) {
  const section = (pattern || '').split('/')[0];
  document.querySelectorAll('.nav a[data-route]').forEach(a => a.classList.toggle('active', a.dataset.route === section));
  document.title = 'Spoonful' + (section ? ' — ' + section[0].toUpperCase() + section.slice(1) : '');
  view.focus();
}

Router.add('', renderHome);
Router.add('recipes', renderList);
Router.add('recipes/:id', renderDetail);
Router.add('favorites', renderFavorites);
Router.add('add', renderAdd);
Router.add('shopping', renderShopping);
Router.add('about', renderAbout);
Router.fallback(renderNotFound);
Router.onChange = highlightNav;

updateBadge();
highlightNav(Router.resolve());
