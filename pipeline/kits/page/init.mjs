// Runs in the page's own world before any app script, in every document: kits/browser.py
// adds it as the context's init script, called with {seed, nonce}. It records which event types are listened to (window/
// document/body-level and per element) without touching the DOM, answers the observer
// in the isolated world with those hints, and makes Math.random repeatable. It also
// counts what could change the page while nobody acts (``sources``).
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
  const perElement = hints(nonce);
  Object.defineProperty(window, KEY, {value: {perElement}, enumerable: false});
  sources(nonce);
  canvases(nonce);
  seedRandom(seed);
}

const HANDLED = ['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'touchstart', 'dblclick',
  'mouseenter', 'mouseover', 'pointerenter', 'pointerover', 'mousemove', 'keydown', 'keyup', 'keypress',
  'drop', 'dragover', 'change', 'input'];

// The listened types: every addEventListener call from now on is recorded, and the
// observer's ask answered with them. Returns the per-element record (element ->
// ",type,type,"). The builtins are all taken before addEventListener is replaced: the
// answer is listened for with the builtin, and so is not a type the page listens to.
function hints(nonce) {
  const builtins = {
    apply: Reflect.apply,
    listen: EventTarget.prototype.addEventListener,
    dispatch: EventTarget.prototype.dispatchEvent,
    Custom: CustomEvent,
    wmGet: WeakMap.prototype.get,
    wmSet: WeakMap.prototype.set,
    indexOf: String.prototype.indexOf,
    byTag: Document.prototype.getElementsByTagName,
    item: HTMLCollection.prototype.item,
    length: Object.getOwnPropertyDescriptor(HTMLCollection.prototype, 'length').get,
    min: Math.min,
  };
  const heard = {perElement: new WeakMap(), global: ','};  // global: window/document/<html>/<body>
  recordListeners(builtins, heard);
  answerHints(builtins, heard, nonce);
  return heard.perElement;
}

// ",a,b," with `type` added once.
function addType({ apply, indexOf }, list, type) {
  return apply(indexOf, list, [',' + type + ',']) < 0 ? list + type + ',' : list;
}

// The types of the on<type> handlers set on `target`, added to `list`.
function handlerTypes(builtins, target, list) {
  for (let i = 0; i < HANDLED.length; i++) {
    if (typeof target['on' + HANDLED[i]] === 'function') list = addType(builtins, list, HANDLED[i]);
  }
  return list;
}

function recordListeners(builtins, heard) {
  const { apply, listen, wmGet, wmSet } = builtins;
  const isElement = (x) => x instanceof Element;
  EventTarget.prototype.addEventListener = function (type, fn, options) {
    try {
      const name = String(type);
      if (this === window || this === document || this === document.documentElement
          || this === document.body) {
        heard.global = addType(builtins, heard.global, name);
      } else if (isElement(this)) {
        apply(wmSet, heard.perElement, [this, addType(builtins, apply(wmGet, heard.perElement, [this]) || ',', name)]);
      }
    } catch { /* never break the app */ }
    return apply(listen, this, [type, fn, options]);
  };
}

function answerHints(builtins, heard, nonce) {
  const { apply, listen, dispatch, Custom, wmGet, byTag, item, length, min } = builtins;
  const ASK = 'iwc-hints-' + nonce, HINT = 'iwc-hint-' + nonce;
  apply(listen, window, [ASK, () => {
    try {
      const all = apply(byTag, document, ['*']);
      const count = min(apply(length, all, []), 6000);  // the observer scans 4000 elements at most
      for (let i = 0; i < count; i++) {
        const el = apply(item, all, [i]);
        const types = handlerTypes(builtins, el, apply(wmGet, heard.perElement, [el]) || ',');
        if (types !== ',') apply(dispatch, el, [new Custom(HINT, {detail: types})]);
      }
      let types = handlerTypes(builtins, window, handlerTypes(builtins, document, heard.global));
      if (document.body) types = handlerTypes(builtins, document.body, types);
      apply(dispatch, window, [new Custom(HINT, {detail: types})]);
    } catch { /* an app that broke the DOM itself gets no hints */ }
  }]);
}

// Math.random repeatable: mulberry32 from `seed`.
function seedRandom(seed) {
  let state = (seed >>> 0) || 1;
  Math.random = function () {
    state = (state + 0x6D2B79F5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Which kind of context each canvas has ("2d", "webgl", "webgl2", ...), for the observer's
// reading of its pixels (stages/exploring/effects.mjs): a WebGL canvas reads back blank
// outside its frame, and asking the canvas itself would make a context where it has none.
// Asked with "iwc-canvas-<nonce>" dispatched on (and bubbling from) the canvas, it answers
// during that dispatch with "iwc-canvas-is-<nonce>" on the canvas, detail the kind ("" for
// none yet). The wrapper returns what the builtin returns.
function canvases(nonce) {
  const apply = Reflect.apply;
  const listen = EventTarget.prototype.addEventListener;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const Custom = CustomEvent;
  const wmGet = WeakMap.prototype.get, wmSet = WeakMap.prototype.set;
  const kinds = new WeakMap();
  const Canvas = window.HTMLCanvasElement;
  if (!Canvas) return;
  const getContext = Canvas.prototype.getContext;
  Canvas.prototype.getContext = function (kind, ...rest) {
    const made = apply(getContext, this, [kind, ...rest]);
    try { if (made && !apply(wmGet, kinds, [this])) apply(wmSet, kinds, [this, String(kind)]); } catch { /* never break the app */ }
    return made;
  };
  Object.defineProperty(Canvas.prototype.getContext, 'name', {value: 'getContext'});
  apply(listen, window, ['iwc-canvas-' + nonce, (event) => {
    const canvas = event.target;
    const kind = canvas instanceof Canvas ? apply(wmGet, kinds, [canvas]) || '' : '';
    apply(dispatch, canvas, [new Custom('iwc-canvas-is-' + nonce, {detail: kind})]);
  }, true]);
}

// What could still change the page while nobody acts, for the snapshot's idle window
// (stages/exploring/snapshot.mjs): timeouts, animation frames and idle callbacks not yet
// run or cleared, intervals not cleared, fetches and XHRs in flight, and whether a
// string timer, a worker or an event source was ever made (then changes may come at any
// time).
// Asked with "iwc-idle-<nonce>" on window, it answers during that dispatch with
// "iwc-idle-is-<nonce>" on window, detail "quiet" or "busy". The wrappers change
// nothing the builtins do. A page that replaced one of them since (an app's own
// scheduler, Playwright's clock installed after this script) is always busy.
function sources(nonce) {
  const apply = Reflect.apply;
  const listen = EventTarget.prototype.addEventListener;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const Custom = CustomEvent;
  const size = Object.getOwnPropertyDescriptor(Set.prototype, 'size').get;
  // due: 't12' timeout, 'i12' interval, 'f3' frame, 'r4' idle callback; ours: [name, wrapper]
  const state = {due: new Set(), inflight: 0, always: false, ours: []};
  countTimers(state);
  const sending = countRequests(state);
  countWorkers(state);
  const quiet = () => !state.always && state.inflight <= 0 && apply(size, state.due, []) === 0
    && XMLHttpRequest.prototype.send === sending && state.ours.every(([name, fn]) => window[name] === fn);
  apply(listen, window, ['iwc-idle-' + nonce, () => {
    apply(dispatch, window, [new Custom('iwc-idle-is-' + nonce, {detail: quiet() ? 'quiet' : 'busy'})]);
  }]);
}

// window[name] replaced by make(original), named as the builtin, and remembered.
function wrapGlobal(state, name, make) {
  const original = window[name];
  if (typeof original !== 'function') return;
  const replaced = make(original);
  Object.defineProperty(replaced, 'name', {value: name});
  window[name] = replaced;
  state.ours.push([name, replaced]);
}

function countTimers(state) {
  const apply = Reflect.apply;
  const add = Set.prototype.add, del = Set.prototype.delete;
  const once = (tag, original) => function (callback, ...rest) {
    if (typeof callback !== 'function') { state.always = true; return apply(original, this, [callback, ...rest]); }
    let id = null;
    const run = function (...args) { apply(del, state.due, [tag + id]); return apply(callback, this, args); };
    id = apply(original, this, [run, ...rest]);
    apply(add, state.due, [tag + id]);
    return id;
  };
  const clear = (tags, original) => function (id) {
    for (const tag of tags) apply(del, state.due, [tag + id]);
    return apply(original, this, [id]);
  };
  wrapGlobal(state, 'setTimeout', (o) => once('t', o));
  wrapGlobal(state, 'requestAnimationFrame', (o) => once('f', o));
  wrapGlobal(state, 'requestIdleCallback', (o) => once('r', o));
  wrapGlobal(state, 'setInterval', (o) => function (callback, ...rest) {
    if (typeof callback !== 'function') state.always = true;
    const id = apply(o, this, [callback, ...rest]);
    apply(add, state.due, ['i' + id]);
    return id;
  });
  // (browsers share one id space between timeouts and intervals, and either clear ends either)
  wrapGlobal(state, 'clearTimeout', (o) => clear(['t', 'i'], o));
  wrapGlobal(state, 'clearInterval', (o) => clear(['t', 'i'], o));
  wrapGlobal(state, 'cancelAnimationFrame', (o) => clear(['f'], o));
  wrapGlobal(state, 'cancelIdleCallback', (o) => clear(['r'], o));
}

// Fetches and XHRs in flight; returns the XHR send wrapper (the quiet check's identity test).
function countRequests(state) {
  const apply = Reflect.apply;
  const then = Promise.prototype.then;
  const listen = EventTarget.prototype.addEventListener;
  const unlisten = EventTarget.prototype.removeEventListener;
  const done = () => { state.inflight -= 1; };
  wrapGlobal(state, 'fetch', (o) => function (...args) {
    const answer = apply(o, this, args);
    state.inflight += 1;
    apply(then, answer, [done, done]);
    return answer;
  });
  const send = XMLHttpRequest.prototype.send;
  const sending = function (...args) {
    // (counted once send has not thrown; a synchronous request's loadend fires inside it)
    const end = () => { state.inflight -= 1; };
    apply(listen, this, ['loadend', end, {once: true}]);
    try {
      apply(send, this, args);
    } catch (error) {
      apply(unlisten, this, ['loadend', end]);
      throw error;
    }
    state.inflight += 1;
  };
  XMLHttpRequest.prototype.send = sending;
  return sending;
}

// (not WebSocket: the browser kit routes every socket, and Playwright's routing puts
// its own WebSocket in the page after this script; a socket never opens in the sandbox)
function countWorkers(state) {
  const construct = Reflect.construct;
  for (const name of ['Worker', 'SharedWorker', 'EventSource']) {
    wrapGlobal(state, name, (Original) => new Proxy(Original, {
      construct(target, args, made) { state.always = true; return construct(target, args, made); },
    }));
  }
}
