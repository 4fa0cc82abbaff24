// A tiny hash router: "#/recipes/pancakes" -> route "recipes/:id" with params {id}.
const Router = (() => {
  const routes = [];
  let notFound = null;

  function add(pattern, handler) {
    const keys = [];
    const regex = new RegExp('^' + pattern.replace(/:(\w+)/g, (_, key) => { keys.push(key); return '([^/]+)'; }) + '$');
    routes.push({ regex, keys, handler, pattern });
  }

  function fallback(handler) {
    notFound = handler;
  }

  function current() {
    const hash = location.hash.replace(/^#\/?/, '');
    const [path, query = ''] = hash.split('?');
    return { path: path.replace(/\/$/, ''), query: new URLSearchParams(query) };
  }

  function resolve() {
    const { path, query } = current();
    for (const route of routes) {
      const match = route.regex.exec(path);
      if (match) {
        const params = {};
        route.keys.forEach((k, i) => { params[k] = decodeURIComponent(match[i + 1]); });
        route.handler(params, query);
        return route.pattern;
      }
    }
    if (notFound) notFound(path);
    return null;
  }

  function go(path) {
    location.hash = '#/' + path;
  }

  window.addEventListener('hashchange', () => { const p = resolve(); Router.onChange(p); });
  return { add, fallback, resolve, go, onChange: () => {} };
})();
