// The page's DOM, serialised, with the marks of what changed while nobody acted
// (volatility.mjs), taken in the same instant once the idle window that the last look
// started has lasted `idleMs`. Runs in the observer's isolated world; it reads only.
//
// A page on which nothing can change while nobody acts (kits/page/idle.mjs) is not
// waited for: its idle window would see nothing, so the marks are the same. Without a
// nonce, or with `wait` (Playwright's clock drives the page's time), the window lasts.
// It also reads the canvases' pixels again (effects.mjs): when they differ from the
// look's (`pixels`), the page draws while nobody acts.
import { pixels } from './effects.mjs';
import { idle } from '../../kits/page/idle.mjs';

export default async function snapshot({idleMs, nonce, wait, drawn}) {
  const v = window.__iwc && window.__iwc.volatility;
  const still = !wait && idle(nonce);
  if (v) await v.settle(still ? 0 : idleMs);
  let html = document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '';
  if (document.documentElement) html += document.documentElement.outerHTML;
  const now = drawn === undefined ? null : pixels(document, nonce).pixels;
  return {html, volatile: v ? v.list() : [], waited: !still, drawing: now !== null && now !== drawn};
}
