// How an element is named: as a person reads it (its role and accessible name, the text
// beside an unlabeled checkbox) and as a script finds it again (a CSS selector). The
// explorer's look (observe.mjs) names every candidate and tree line with these; they read
// the page and never change it.

// (a cut never splits a surrogate pair: half an emoji is no text, and Python cannot encode it)
export const clip = (s, n) => {
  s = (s || '').replace(/\s+/g, ' ').trim();
  if (s.length <= n) return s;
  const end = /[\uD800-\uDBFF]/.test(s[n - 2] || '') ? n - 2 : n - 1;
  return s.slice(0, end) + '…';
};

export const q = (s) => '"' + String(s).replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';

export const roleOf = (el) => {
  const explicit = (el.getAttribute('role') || '').split(' ')[0];
  if (explicit) return explicit;
  const tag = el.tagName.toLowerCase();
  if (tag === 'a' && el.hasAttribute('href')) return 'link';
  if (tag === 'button' || tag === 'summary') return 'button';
  if (tag === 'select') return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
  if (tag === 'textarea') return 'textbox';
  if (tag === 'input') {
    const type = (el.getAttribute('type') || 'text').toLowerCase();
    return {checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox',
      button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'file'}[type] || 'textbox';
  }
  if (/^h[1-6]$/.test(tag)) return 'heading';
  return {nav: 'navigation', main: 'main', header: 'banner', footer: 'contentinfo', aside: 'complementary',
    form: 'form', ul: 'list', ol: 'list', li: 'listitem', img: 'img', table: 'table', tr: 'row',
    td: 'cell', th: 'columnheader', dialog: 'dialog', canvas: 'canvas', label: 'label', p: 'paragraph',
    section: el.hasAttribute('aria-label') ? 'region' : ''}[tag] || '';
};

export const nextText = (el) => {
  let node = el.nextSibling;
  for (let i = 0; node && i < 4; i++, node = node.nextSibling) {
    if (node.nodeType === 1 && node.matches('input,button,select,textarea,a[href]')) return '';
    const text = clip(node.textContent, 60);
    if (text) return text;
  }
  return '';
};

const unique = (sel) => { try { return document.querySelectorAll(sel).length === 1; } catch { return false; } };

// A web component's rendered content lives in its open shadow root: its parent there is
// the host, and a host's children as rendered are its shadow root's, then its own
// (slotted into the shadow tree's <slot>s).
export const parentOf = (el) => el.parentElement || (el.parentNode && el.parentNode.host) || null;
export const childrenOf = (el) => (el.shadowRoot ? [...el.shadowRoot.children, ...el.children] : el.children);
export const kidsOf = (el) => (el.shadowRoot ? [...el.shadowRoot.childNodes, ...el.childNodes] : el.childNodes);
const inDocument = (el) => el.getRootNode() === document;

// A CSS selector for the element: by a unique id or test attribute, else its path of
// tags (nth-of-type among same-tag siblings) up to an ancestor with a unique id or body.
// Inside a shadow root the path goes on through the host ("body > my-app > button"):
// Playwright's CSS engine reads `>` across that boundary (document.querySelector does
// not, and kits/page/aim.mjs then leaves the click to Playwright).
export function selectorOf(el) {
  const tag = el.tagName.toLowerCase();
  if (inDocument(el) && el.id && /^[A-Za-z][\w-]*$/.test(el.id) && unique('#' + el.id)) return '#' + el.id;
  for (const attr of inDocument(el) ? ['data-testid', 'data-test', 'data-cy', 'name', 'aria-label'] : []) {
    const v = el.getAttribute(attr);
    if (v && v.length < 80) { const s = tag + '[' + attr + '=' + q(v) + ']'; if (unique(s)) return s; }
  }
  const parts = [];
  let node = el;
  while (node && node.nodeType === 1 && node !== document.documentElement) {
    if (node !== el && inDocument(node) && node.id && /^[A-Za-z][\w-]*$/.test(node.id) && unique('#' + node.id)) {
      parts.unshift('#' + node.id); break;
    }
    const t = node.tagName.toLowerCase();
    if (t === 'body') { parts.unshift('body'); break; }
    let part = t;
    const siblings = node.parentElement ? node.parentElement.children : node.parentNode && node.parentNode.children;
    if (siblings) {
      const same = Array.from(siblings).filter(c => c.tagName === node.tagName);
      if (same.length > 1) part += ':nth-of-type(' + (same.indexOf(node) + 1) + ')';
    }
    parts.unshift(part);
    node = parentOf(node);
  }
  return parts.join(' > ');
}

// The element's accessible name, as a person reads it.
export function nameOf(el) {
  const label = el.getAttribute('aria-label');
  if (label) return clip(label, 80);
  const by = el.getAttribute('aria-labelledby');
  if (by) {
    const text = by.split(/\s+/).map(id => (document.getElementById(id) || {}).textContent || '').join(' ');
    if (text.trim()) return clip(text, 80);
  }
  if (el.labels && el.labels.length) return clip(el.labels[0].innerText, 80);
  const tag = el.tagName.toLowerCase();
  if (tag === 'input' && ['button', 'submit', 'reset'].includes(el.type)) return clip(el.value || el.type, 80);
  if (tag === 'img') return clip(el.alt, 80);
  // an unlabeled checkbox / radio is read by the text right after it ("[ ] Buy milk")
  if (tag === 'input' && ['checkbox', 'radio'].includes(el.type)) { const t = nextText(el); if (t) return t; }
  if (['input', 'textarea', 'select'].includes(tag)) return clip(el.getAttribute('placeholder') || el.getAttribute('title') || el.name || '', 80);
  const text = clip(el.innerText || el.textContent, 80);
  return text || clip(el.getAttribute('title') || el.getAttribute('alt') || '', 80);
}
