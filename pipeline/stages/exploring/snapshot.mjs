// The page's DOM, serialised, with the marks of what changed while nobody acted
// (volatility.mjs), taken in the same instant once the idle window that the last look
// started has lasted `idleMs`. Runs in the observer's isolated world; it reads only.
//
// A page on which nothing can change while nobody acts is not waited for: no timeout,
// frame, idle callback or interval pending, no request in flight, no worker or event
// source ever made (the page's own world counts them: kits/page/init.mjs, asked with `nonce`),
// the document and its images and fonts loaded, no animation or media playing, no
// frame inside. Its idle window would see nothing, so the marks are the same. Without
// a nonce, or with `wait` (Playwright's clock drives the page's time), the window lasts.
// It also reads the canvases' pixels again (effects.mjs): when they differ from the
// look's (`pixels`), the page draws while nobody acts.
import { pixels } from './effects.mjs';

export default async function snapshot({idleMs, nonce, wait, drawn}) {
  const v = window.__iwc && window.__iwc.volatility;
  const still = !wait && nonce && quiet(nonce);
  if (v) await v.settle(still ? 0 : idleMs);
  let html = document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '';
  if (document.documentElement) html += document.documentElement.outerHTML;
  const now = drawn === undefined ? null : pixels(document, nonce).pixels;
  return {html, volatile: v ? v.list() : [], waited: !still, drawing: now !== null && now !== drawn};
}

function quiet(nonce) {
  if (document.readyState !== 'complete' || window.frames.length > 0) return false;
  if (document.fonts && document.fonts.status === 'loading') return false;
  if (Array.from(document.images).some((img) => !img.complete)) return false;
  if (Array.from(document.querySelectorAll('video, audio')).some((m) => !m.paused)) return false;
  if (document.getAnimations && document.getAnimations().some((a) => a.playState === 'running' || a.pending)) return false;
  let answer = 'busy';  // no answer (the page broke the channel): busy
  const hear = (event) => { answer = String(event.detail); };
  window.addEventListener('iwc-idle-is-' + nonce, hear, true);
  try { window.dispatchEvent(new CustomEvent('iwc-idle-' + nonce)); }
  finally { window.removeEventListener('iwc-idle-is-' + nonce, hear, true); }
  return answer === 'quiet';
}
