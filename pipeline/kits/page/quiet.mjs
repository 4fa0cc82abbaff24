// Bounds what a page can say, in every document, before any app script runs: the
// browser kit adds it to the context's init scripts, the quality tools' pages evaluate
// it on every new document. Called with {nonce, lines, chars, errors}.
//
// A page that writes a million console lines would otherwise become a million DevTools
// events, each with handles to its arguments, and the session drowns in them. Here the
// first `lines` console calls of a document go through (a string argument longer than
// `chars` is clipped, arguments past the 20th are dropped); later ones are counted, not
// sent. The first `errors` uncaught errors and unhandled rejections are reported as
// usual; later ones are cancelled (preventDefault: the browser does not report them)
// and counted. At most four times a second, while there is something counted, one
// console.debug line "iwc-quiet-<nonce> {json}" carries the counts since the last one:
// {"lines", "errors", "uncaught"} (console lines of any kind, of them console.error and
// console.assert, uncaught errors). The nonce is the session's: the page never sees it. Every builtin
// is taken now, before the app can replace it.
export const METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir', 'dirxml', 'table', 'assert',
  'count', 'timeLog', 'group', 'groupCollapsed'];

export const ARGS = 20;  // arguments kept of one call: a line is bounded in all, not only per argument

export function clipped(args, chars, slice) {
  const out = [];
  for (let i = 0; i < args.length && i < ARGS; i++) {
    const a = args[i];
    out.push(typeof a === 'string' && a.length > chars ? slice(a, chars) + '…' : a);
  }
  return out;
}

export default function quiet({ nonce, lines, chars, errors }) {
  const KEY = Symbol.for('iwc.quiet');
  if (window[KEY]) return;
  Object.defineProperty(window, KEY, { value: true });
  const apply = Reflect.apply;
  const listen = EventTarget.prototype.addEventListener;
  const later = window.setTimeout;
  const Uncaught = ErrorEvent;
  const encode = JSON.stringify;
  const stringSlice = String.prototype.slice;
  const slice = (text, n) => apply(stringSlice, text, [0, n]);
  const target = window.console;
  const debug = target.debug;
  let passed = 0, uncaught = 0, pending = false;
  let held = { lines: 0, errors: 0, uncaught: 0 };
  const report = () => {
    pending = false;
    const counts = held;
    held = { lines: 0, errors: 0, uncaught: 0 };
    try { apply(debug, target, ['iwc-quiet-' + nonce + ' ' + encode(counts)]); } catch { /* console gone */ }
  };
  const hold = (kind) => {
    held[kind] += 1;
    if (!pending) {
      pending = true;
      apply(later, window, [report, 250]);
    }
  };
  for (let i = 0; i < METHODS.length; i++) {
    const name = METHODS[i];
    const original = target[name];
    if (typeof original !== 'function') continue;
    const isError = name === 'error' || name === 'assert';
    target[name] = function (...args) {
      if (passed < lines) {
        passed += 1;
        return apply(original, this, clipped(args, chars, slice));
      }
      if (name === 'assert' && args[0]) return undefined;
      hold('lines');
      if (isError) hold('errors');
      return undefined;
    };
  }
  const cancel = (event) => {
    if (event.type === 'error' && !(event instanceof Uncaught)) return;  // a resource that failed to load
    uncaught += 1;
    if (uncaught > errors) {
      event.preventDefault();
      hold('uncaught');
    }
  };
  apply(listen, window, ['error', cancel, true]);
  apply(listen, window, ['unhandledrejection', cancel, true]);
}
