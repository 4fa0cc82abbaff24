// What an action can leave beside the DOM, fingerprinted for the explorer's look
// (observe.mjs) and again after the idle window (snapshot.mjs): the data the app keeps
// (localStorage, sessionStorage, cookies) and its canvases' pixels. Abstracting compares
// the fingerprints of consecutive steps: a change is an effect (issue 41); a canvas whose
// pixels changed while nobody acted cannot tell an action's change from its own.
//
// It reads only. A canvas is read by drawing it into a small canvas of this world's own;
// a WebGL canvas without preserveDrawingBuffer reads back blank outside its frame, and
// a canvas never drawn is blank too: such a canvas is "unread", not a fingerprint.
// IndexedDB cannot be read synchronously and is not fingerprinted.

// FNV-1a, 32 bits: stable and cheap (observe.mjs's two lanes are for the DOM's far
// larger text)
const fnv = (text) => {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return (h >>> 0).toString(16).padStart(8, '0');
};

export const KEPT_CHARS = 2000000;  // read of the kept data at most; past it, its length stands in
export const SIDE = 16;  // a canvas is read as SIDE x SIDE pixels, 4 bits per channel
export const CANVASES = 3;  // canvases read, the largest first

// The data the app keeps, as one fingerprint ("" when it keeps nothing).
export function kept(win) {
  const parts = [];
  let chars = 0;
  for (const name of ['localStorage', 'sessionStorage']) {
    let area;
    try { area = win[name]; } catch { continue; }  // an opaque origin refuses storage
    if (!area) continue;
    const keys = [];
    try { for (let i = 0; i < area.length; i++) keys.push(area.key(i)); } catch { continue; }
    keys.sort();
    for (const key of keys) {
      let value = '';
      try { value = area.getItem(key) || ''; } catch { /* gone meanwhile */ }
      chars += key.length + value.length;
      parts.push(name[0] + ':' + key + '=' + (chars > KEPT_CHARS ? '#' + value.length : value));
    }
  }
  try { if (win.document.cookie) parts.push('c:' + win.document.cookie.split('; ').sort().join('; ')); } catch { /* refused */ }
  return parts.length ? fnv(parts.join('\n')) : '';
}

// Its canvases' pixels: {pixels: fingerprint of those read ("" for none), unread: how
// many could not be read}. Canvases of no size or out of the document are not looked at.
// A blank 2D canvas is a reading (nothing drawn yet); a blank WebGL canvas is not (its
// buffer went to the screen): the page's world says which context a canvas has
// (kits/page/init.mjs, asked with `nonce`).
export function pixels(doc, nonce) {
  const all = Array.from(doc.querySelectorAll('canvas')).filter((c) => c.width > 0 && c.height > 0 && c.isConnected);
  all.sort((a, b) => b.width * b.height - a.width * a.height);
  const read = [];
  let unread = 0;
  for (const canvas of all.slice(0, CANVASES)) {
    const data = thumbnail(doc, canvas);
    if (data === undefined || (data === null && /webgl/.test(kindOf(canvas, nonce)))) unread++;
    else read.push(data === null ? 'blank' : data);
  }
  return {pixels: read.length ? fnv(read.join('|')) : '', unread};
}

// The kind of context the canvas has, as the page's world recorded it ("" unknown).
export function kindOf(canvas, nonce) {
  if (!nonce) return '';
  let kind = '';
  const hear = (event) => { kind = String(event.detail || ''); };
  canvas.addEventListener('iwc-canvas-is-' + nonce, hear);
  try { canvas.dispatchEvent(new CustomEvent('iwc-canvas-' + nonce, {bubbles: true})); }
  catch { /* no answer: unknown */ }
  finally { canvas.removeEventListener('iwc-canvas-is-' + nonce, hear); }
  return kind;
}

// SIDE x SIDE pixels of one canvas at 4 bits a channel; null when no pixel is drawn
// (alpha 0 everywhere), undefined when it cannot be read at all (a tainted canvas).
export function thumbnail(doc, canvas) {
  let data;
  try {
    const small = doc.createElement('canvas');
    small.width = SIDE; small.height = SIDE;
    const context = small.getContext('2d', {willReadFrequently: true});
    context.drawImage(canvas, 0, 0, SIDE, SIDE);
    data = context.getImageData(0, 0, SIDE, SIDE).data;
  } catch {
    return undefined;
  }
  let drawn = false;
  let text = '';
  for (let i = 0; i < data.length; i++) {
    if (i % 4 === 3 && data[i]) drawn = true;
    text += (data[i] >> 4).toString(16);
  }
  return drawn ? text : null;
}
