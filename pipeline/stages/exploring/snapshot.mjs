// The page's DOM, serialised, with the marks of what changed while nobody acted
// (volatility.mjs), taken in the same instant once the idle window that the last look
// started has lasted `idleMs`. Runs in the observer's isolated world; it reads only.
export default async function snapshot(idleMs) {
  const v = window.__iwc && window.__iwc.volatility;
  if (v) await v.settle(idleMs);
  let html = document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '';
  if (document.documentElement) html += document.documentElement.outerHTML;
  return {html, volatile: v ? v.list() : []};
}
