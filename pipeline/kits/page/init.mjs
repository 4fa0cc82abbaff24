// Runs in the page's own world before any app script, in every document: kits/browser.py
// adds it as the context's init script, called with {seed, nonce}. It records which event types are listened to (window/
// document/body-level and per element) without touching the DOM, answers the observer
// in the isolated world with those hints, and makes Math.random repeatable.
//
// The observer asks by dispatching "iwc-hints-<nonce>" on window; this answers, during
// that same dispatch, with one "iwc-hint-<nonce>" event per listened element (its
// detail: the types, comma-separated) and one on window (window/document/body types).
// Events carry element identity across worlds; nothing else here is visible to the
// page. Every builtin used later is taken now, before the app can replace it: an app
// that breaks them anyway only loses hints about its own elements.
export default function install({ seed, nonce }) {
  const KEY = Symbol.for('iwc.explorer');
  if (window[KEY]) return;
  const ASK = 'iwc-hints-' + nonce, HINT = 'iwc-hint-' + nonce;
  const apply = Reflect.apply;
  const listen = EventTarget.prototype.addEventListener;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const Custom = CustomEvent;
  const wmGet = WeakMap.prototype.get;
  const wmSet = WeakMap.prototype.set;
  const indexOf = String.prototype.indexOf;
  const byTag = Document.prototype.getElementsByTagName;
  const item = HTMLCollection.prototype.item;
  const length = Object.getOwnPropertyDescriptor(HTMLCollection.prototype, 'length').get;
  const isElement = (x) => x instanceof Element;
  const min = Math.min;
  const HANDLED = ['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'touchstart', 'dblclick',
    'mouseenter', 'mouseover', 'pointerenter', 'pointerover', 'mousemove', 'keydown', 'keyup', 'keypress',
    'drop', 'dragover', 'change', 'input'];
  const perElement = new WeakMap();  // element -> ",type,type,"
  let global = ',';
  const add = (list, type) => (apply(indexOf, list, [',' + type + ',']) < 0 ? list + type + ',' : list);
  EventTarget.prototype.addEventListener = function (type, fn, options) {
    try {
      const name = String(type);
      if (this === window || this === document || this === document.documentElement
          || this === document.body) {
        global = add(global, name);
      } else if (isElement(this)) {
        apply(wmSet, perElement, [this, add(apply(wmGet, perElement, [this]) || ',', name)]);
      }
    } catch { /* never break the app */ }
    return apply(listen, this, [type, fn, options]);
  };
  const handlers = (target, list) => {
    for (let i = 0; i < HANDLED.length; i++) {
      if (typeof target['on' + HANDLED[i]] === 'function') list = add(list, HANDLED[i]);
    }
    return list;
  };
  apply(listen, window, [ASK, () => {
    try {
      const all = apply(byTag, document, ['*']);
      const count = min(apply(length, all, []), 6000);  // the observer scans 4000 elements at most
      for (let i = 0; i < count; i++) {
        const el = apply(item, all, [i]);
        const types = handlers(el, apply(wmGet, perElement, [el]) || ',');
        if (types !== ',') apply(dispatch, el, [new Custom(HINT, {detail: types})]);
      }
      let types = handlers(window, handlers(document, global));
      if (document.body) types = handlers(document.body, types);
      apply(dispatch, window, [new Custom(HINT, {detail: types})]);
    } catch { /* an app that broke the DOM itself gets no hints */ }
  }]);
  Object.defineProperty(window, KEY, {value: {perElement}, enumerable: false});
  let state = (seed >>> 0) || 1;
  Math.random = function () {
    state = (state + 0x6D2B79F5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
