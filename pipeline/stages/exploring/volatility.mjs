// What changes on the page while nobody acts: text, attributes and child lists that a
// timer rewrites. Runs in the observer's isolated world (its state lives on that world's
// window for the document's life): volatility() makes window.__iwc.volatility once per
// document and returns it (observe.mjs calls it before each look).
//
//   watch()        start an idle window (after the page settled from an action)
//   settle(ms)     end it no sooner than `ms` after watch(), and mark what changed
//   list()         the marks of elements still in the document, with their paths
//   withoutMarked(el, text)  `text` (el's innerText) without the marked elements' text
//
// An element is marked volatile for a kind of change (its own text, one attribute, its
// children) when that change happens in two separate mutation batches of one idle
// window, or in two idle windows: a ticker is caught at once, a late one-off render
// (a fetch answering after the settle) is not. Paths are element-child indices from
// <html> ("" is <html>, "1.0" its second child's first child), as abstracting.py
// counts them in the snapshot taken in the same call. It never changes the DOM.
export function volatility() {
  const iwc = window.__iwc || (window.__iwc = {});
  if (iwc.volatility) return iwc.volatility;
  const state = {
    marks: new Map(),  // element -> {text, attributes: Set, children}
    windows: new WeakMap(),  // element -> {text: n, children: n, attributes: Map(name -> n)}
    observer: null,
    started: 0,
    batch: new Map(),  // element -> {text: n, children: n, attributes: Map(name -> n)}
  };
  const note = (records) => noteBatch(state, records);
  iwc.volatility = {
    watch() {
      if (state.observer) state.observer.disconnect();
      state.batch = new Map();
      if (!document.documentElement) return;
      state.observer = new MutationObserver(note);
      state.observer.observe(document.documentElement,
        {subtree: true, childList: true, characterData: true, attributes: true});
      state.started = performance.now();
    },
    async settle(ms) {
      if (!state.observer) return;
      const left = state.started + ms - performance.now();
      if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
      note(state.observer.takeRecords());
      state.observer.disconnect();
      state.observer = null;
      promote(state);
    },
    list() {
      return listMarks(state.marks);
    },
    withoutMarked(root, text) {
      return withoutMarked(state.marks, root, text);
    },
  };
  return iwc.volatility;
}

const slot = (table, el) => {
  let entry = table.get(el);
  if (!entry) { entry = {text: 0, children: 0, attributes: new Map()}; table.set(el, entry); }
  return entry;
};

// One mutation batch: each element counted once per kind of change, into the window's batch.
function noteBatch(state, records) {
  const touched = new Map();  // once per batch
  for (const r of records) {
    const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
    if (!el) continue;
    const seen = slot(touched, el);
    if (r.type === 'characterData') seen.text = 1;
    else if (r.type === 'attributes') seen.attributes.set(r.attributeName, 1);
    else {
      const nodes = [...r.addedNodes, ...r.removedNodes];
      if (nodes.every((n) => n.nodeType !== 1)) seen.text = 1; else seen.children = 1;
    }
  }
  for (const [el, seen] of touched) {
    const total = slot(state.batch, el);
    total.text += seen.text; total.children += seen.children;
    for (const name of seen.attributes.keys()) total.attributes.set(name, (total.attributes.get(name) || 0) + 1);
  }
}

// The end of an idle window: what changed twice in it, or in it and an earlier one, is marked.
function promote(state) {
  const { marks } = state;
  for (const [el, seen] of state.batch) {
    const past = slot(state.windows, el);
    const mark = marks.get(el) || {text: false, attributes: new Set(), children: false};
    if (seen.text && (seen.text >= 2 || past.text >= 1)) mark.text = true;
    if (seen.children && (seen.children >= 2 || past.children >= 1)) mark.children = true;
    for (const [name, n] of seen.attributes) {
      if (n >= 2 || (past.attributes.get(name) || 0) >= 1) mark.attributes.add(name);
      past.attributes.set(name, (past.attributes.get(name) || 0) + 1);
    }
    past.text += seen.text ? 1 : 0;
    past.children += seen.children ? 1 : 0;
    if (mark.text || mark.children || mark.attributes.size) marks.set(el, mark);
  }
  state.batch = new Map();
}

const pathOf = (el) => {
  const parts = [];
  for (let node = el; node && node !== document.documentElement; node = node.parentElement) {
    const parent = node.parentElement;
    if (!parent) return null;
    parts.unshift(Array.prototype.indexOf.call(parent.children, node));
  }
  return parts.join('.');
};

function listMarks(marks) {
  const found = [];
  for (const [el, mark] of marks) {
    if (!el.isConnected) { marks.delete(el); continue; }
    const path = pathOf(el);
    if (path === null) continue;
    found.push({path, text: mark.text, attributes: [...mark.attributes].sort(), children: mark.children});
  }
  return found;
}

function withoutMarked(marks, root, text) {
  for (const [el, mark] of marks) {
    if ((mark.text || mark.children) && el.isConnected && root.contains(el)) {
      const own = el.innerText || el.textContent || '';
      if (own) text = text.replace(own, '');
    }
  }
  return text;
}
