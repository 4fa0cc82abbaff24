// What a rendered page shows, measured in the page itself (the quality stage's probe).
//
// One function, evaluated by puppeteer in Chromium and in Firefox alike (kits/injecting.py
// puts it together; stages/quality/tooling.py hands the expression to server.mjs), and
// by the explorer in its own live page next to each new DOM snapshot
// (kits/inspecting.probe), so every engine and page reports the same facts in the same
// shape. It only reads the DOM, computed styles and boxes; it
// never changes the page, never runs app code and never talks to the network. Texts are
// capped: this is evidence, not a copy. What counts as shown is kits/page/visible.mjs, as
// for the explorer. The helpers exported above `probe` are for tests/js; those below are
// its parts.
import { visibility } from './visible.mjs';

export const cap = (s, n = 200) => { s = String(s || '').replace(/\s+/g, ' ').trim(); return s.length > n ? s.slice(0, n) : s; };

// An element's place in the document: "body:1>div:2>p:1" (tag and index among siblings
// of its tag, from <body> down).
export const pathOf = (el) => {
  const parts = [];
  for (let node = el; node && node.nodeType === 1 && node !== node.ownerDocument.documentElement; node = node.parentElement) {
    let i = 1;
    for (let s = node.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === node.tagName) i += 1;
    parts.unshift(`${node.tagName.toLowerCase()}:${i}`);
  }
  return parts.join('>');
};

export const STYLE = ['fontFamily', 'fontSize', 'fontWeight', 'color', 'backgroundColor', 'borderRadius', 'borderTopWidth',
  'borderTopStyle', 'borderTopColor', 'paddingTop', 'paddingLeft', 'textTransform', 'boxShadow'];
// The style facts of a component (`height`: its box's, for controls).
export const styleOf = (cs, height) => {
  const out = {};
  for (const p of STYLE) out[p] = p === 'boxShadow' ? (cs[p] === 'none' ? 'none' : 'shadow') : cs[p];
  if (height !== undefined) out.height = `${Math.round(height)}px`;
  return out;
};

// A card: a framed box (shadow or border) that is filled or rounded, narrower than 90 %
// of the viewport and at least 80×40 px.
export const isCard = (cs, r, innerWidth) => {
  const framed = cs.boxShadow !== 'none' || (parseFloat(cs.borderTopWidth) > 0 && cs.borderTopStyle !== 'none');
  const filled = cs.backgroundColor !== 'rgba(0, 0, 0, 0)' && cs.backgroundColor !== 'transparent';
  return framed && (filled || parseFloat(cs.borderRadius) > 0) && r.width < innerWidth * 0.9 && r.width > 80 && r.height > 40;
};

// icons: small SVGs, icon-font glyphs, small images, emoji used as icons
export const ICON_FONTS = /(font ?awesome|material (icons|symbols)|bootstrap-icons|remixicon|ionicons|feather|glyphicons|tabler|phosphor|lucide|boxicons|line ?awesome|icomoon)/i;
export const ICON_CLASS = /(^|\s)(fa[srlbdk]?|fa-[\w-]+|bi|bi-[\w-]+|material-icons[\w-]*|material-symbols[\w-]*|ri-[\w-]+|ion-[\w-]+|icon-[\w-]+|glyphicon[\w-]*|ti-[\w-]+|ph-[\w-]+|bx-[\w-]+|las?-[\w-]+)(\s|$)/;
export const EMOJI = /\p{Extended_Pictographic}/u;

// The icon set of an <i>/<span>/<em> drawn by an icon font ("font awesome", "fa",
// "material"), from its font families (its own and its ::before's) and class names;
// null when it is no icon.
export const fontIconSet = (family, cls, text) => {
  if (!(ICON_FONTS.test(family) || (ICON_CLASS.test(cls) && (text.trim().length <= 30)))) return null;
  return (family.match(ICON_FONTS) || cls.match(ICON_CLASS) || ['font'])[0].trim().toLowerCase().split('-')[0];
};

// A text node's trimmed text is an emoji used as an icon: a short one with a pictograph,
// or one that starts with a pictograph.
export const isEmojiIcon = (trimmed) =>
  (EMOJI.test(trimmed) && [...trimmed].filter((c) => EMOJI.test(c)).length >= 1 && trimmed.length <= 4)
  || EMOJI.test(trimmed.slice(0, 2));

export const TEXTLIKE = new Set(['text', 'email', 'password', 'search', 'tel', 'url', 'number', 'date', '']);

export default function probe(options) {
  const seen = visibility(window);
  const MAX = (options && options.max) || 400;
  // With a budget, give up once it has passed (checked every 256 elements): a caller
  // whose watchdog kills a renderer that does not answer in time gets an answer.
  const budget = options && options.budget_ms;
  const started = performance.now();
  let ticks = 0;
  const over = () => !!budget && (++ticks & 255) === 0 && performance.now() - started > budget;
  const OVER = { over_budget: true };
  const look = { MAX, over, shown: seen.visible, all: [...document.querySelectorAll('body *')] };
  const found = componentsOf(look);
  if (!found) return OVER;
  const icons = iconList(MAX);
  if (!iconsOf(look, icons)) return OVER;
  const texts = textsOf(look, icons);
  if (!texts) return OVER;
  const media = mediaOf(look);
  const boxes = boxesOf(look);
  if (!boxes) return OVER;
  const landmarks = landmarksOf(look);
  const targets = targetsOf(look);
  const links = linksOf(MAX);
  const meta = document.querySelector('meta[name=viewport]');
  return {
    url: location.href, title: cap(document.title, 200), viewport: [innerWidth, innerHeight], screen: [screen.width, screen.height],
    scroll: [Math.round(scrollX), Math.round(scrollY)], pinned: found.pinned,
    document: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
    meta_viewport: meta ? meta.getAttribute('content') : null, components: found.components, icons: icons.list,
    texts: texts.list, text_chars: texts.chars, media, boxes, landmarks, targets, links,
  };
}

// An element's box on the page: [left, top, width, height], rounded.
const pageBox = (el) => { const r = el.getBoundingClientRect(); return [Math.round(r.left + scrollX), Math.round(r.top + scrollY), Math.round(r.width), Math.round(r.height)]; };

// Buttons, inputs, headings and cards with their style facts, and whether any box is
// pinned (fixed or sticky: where it is on the page depends on the scroll); null when
// over budget.
function componentsOf({ MAX, over, shown, all }) {
  const components = [];
  let pinned = false;
  const push = (role, el, cs, extra) => { if (components.length < MAX) components.push({ role, path: pathOf(el), style: styleOf(cs, extra ? el.getBoundingClientRect().height : undefined) }); };
  for (const el of all) {
    if (over()) return null;
    const tag = el.tagName.toLowerCase();
    const cs = getComputedStyle(el);
    if (cs.position === 'fixed' || cs.position === 'sticky') pinned = true;
    if (!shown(el, cs)) continue;
    const type = (el.getAttribute('type') || '').toLowerCase();
    if (tag === 'button' || el.getAttribute('role') === 'button' || (tag === 'input' && ['submit', 'button', 'reset'].includes(type))) push('button', el, cs, true);
    else if ((tag === 'input' && TEXTLIKE.has(type)) || tag === 'textarea' || tag === 'select') push('input', el, cs, tag !== 'textarea');
    else if (/^h[1-6]$/.test(tag)) push(`heading ${tag}`, el, cs, false);
    else if (['div', 'section', 'article', 'li', 'aside'].includes(tag) && el.children.length >= 2) {
      if (isCard(cs, el.getBoundingClientRect(), innerWidth)) push('card', el, cs, false);
    }
  }
  return { components, pinned };
}

// The icons found, each element once, at most MAX.
function iconList(MAX) {
  const list = [];
  const seen = new Set();
  const add = (kind, set, el) => {
    if (list.length >= MAX || seen.has(el)) return;
    seen.add(el);
    const r = el.getBoundingClientRect();
    list.push({ kind, set, size: Math.round(Math.max(r.width, r.height)), path: pathOf(el) });
  };
  return { list, add };
}

// Small SVGs, small images and icon-font glyphs into `icons`; false when over budget.
function iconsOf({ over, shown, all }, icons) {
  for (const el of all) {
    if (over()) return false;
    const tag = el.tagName.toLowerCase();
    if (tag === 'svg' && !(el.parentElement && el.parentElement.closest('svg'))) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.width <= 64 && r.height > 0 && r.height <= 64 && shown(el)) icons.add('svg', 'svg', el);
    } else if ((tag === 'img') && shown(el)) {
      const r = el.getBoundingClientRect();
      if (r.width <= 32 && r.height <= 32) icons.add('img', 'image', el);
    } else if (['i', 'span', 'em'].includes(tag) && shown(el)) {
      const cs = getComputedStyle(el);
      const before = getComputedStyle(el, '::before');
      const set = fontIconSet(`${cs.fontFamily} ${before.fontFamily}`, typeof el.className === 'string' ? el.className : '', el.textContent);
      if (set !== null) icons.add('font', set, el);
    }
  }
  return true;
}

// The visible text, one entry per element holding text (emoji used as icons go to
// `icons`): {list, chars}, or null when over budget.
function textsOf({ MAX, over, shown }, icons) {
  const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
  const list = [];
  const textSeen = new Set();
  let chars = 0;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (over()) return null;
    const value = node.nodeValue;
    if (!value || !value.trim()) continue;
    const el = node.parentElement;
    if (!el || ['script', 'style', 'noscript', 'template', 'textarea', 'option'].includes(el.tagName.toLowerCase())) continue;
    const cs = getComputedStyle(el);
    if (!shown(el, cs)) continue;
    const rect = el.getBoundingClientRect();
    // visually hidden text (a screen-reader label) is not copy anyone reads on screen
    if (rect.width < 4 || rect.height < 4 || cs.clip !== 'auto' && cs.position === 'absolute') continue;
    const trimmed = value.trim();
    if (isEmojiIcon(trimmed)) icons.add('emoji', 'emoji', el);
    if (textSeen.has(el) || list.length >= MAX) continue;
    textSeen.add(el);
    const entry = textEntry(el, cs, trimmed);
    chars += entry.text.length;
    list.push(entry);
  }
  return { list, chars };
}

// One element's text with what it is drawn in and on.
function textEntry(el, cs, trimmed) {
  const clipped = (cs.overflow.includes('hidden') || cs.textOverflow === 'ellipsis' || cs.overflowX === 'hidden')
    && (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 2) && el.clientWidth > 0;
  const bg = backgroundOf(el);
  const inline = el.closest('a') && el.closest('p, li, td, label, span') ? true : false;
  const text = cap(el.innerText || trimmed, 300);
  return { path: pathOf(el), tag: el.tagName.toLowerCase(), text, size: parseFloat(cs.fontSize), weight: cs.fontWeight,
    color: cs.color, background: bg, clipped, inline,
    role: /^h[1-6]$/.test(el.tagName.toLowerCase()) ? 'heading' : (el.closest('button, [role=button]') ? 'button' : 'text') };
}

// The colour text is drawn on: the first filled box from it up (white at the root),
// null under a background image.
function backgroundOf(el) {
  let bg = null;
  for (let a = el; a; a = a.parentElement) {
    const s = getComputedStyle(a);
    if (s.backgroundImage && s.backgroundImage !== 'none') { bg = null; break; }
    if (s.backgroundColor && s.backgroundColor !== 'rgba(0, 0, 0, 0)' && s.backgroundColor !== 'transparent') { bg = s.backgroundColor; break; }
    if (a === document.documentElement) bg = 'rgb(255, 255, 255)';
  }
  return bg;
}

function mediaOf({ MAX, shown }) {
  const media = [];
  for (const el of document.querySelectorAll('img, video, audio, input[type=image], svg[role=img]')) {
    if (media.length >= MAX) break;
    const tag = el.tagName.toLowerCase();
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    const visible = shown(el, cs);
    if (!visible && tag !== 'audio') continue;
    media.push(mediaItem(el, tag, r, cs));
  }
  return media;
}

// An image, video, audio or SVG picture: its box, source, text alternative and whether it loaded.
function mediaItem(el, tag, r, cs) {
  const item = { tag, path: pathOf(el), box: [Math.round(r.width), Math.round(r.height)], fit: cs.objectFit,
    src: cap(el.currentSrc || el.getAttribute('src') || '', 300), alt: el.hasAttribute('alt') ? el.getAttribute('alt') : null,
    label: cap(el.getAttribute('aria-label') || el.getAttribute('title') || '', 80) };
  if (tag === 'img' || tag === 'input') {
    item.natural = [el.naturalWidth || 0, el.naturalHeight || 0];
    item.broken = el.complete ? (el.naturalWidth === 0) : null;
    if (/\.svg(\?|#|$)/i.test(item.src) || item.src.startsWith('data:image/svg')) item.vector = true;
  } else if (tag === 'video' || tag === 'audio') {
    item.broken = !!el.error || (el.networkState === 3);
    item.natural = [el.videoWidth || 0, el.videoHeight || 0];
    item.controls = el.hasAttribute('controls');
  } else {
    item.broken = false;
    item.natural = [0, 0];
    item.vector = true;
    item.alt = el.querySelector('title') ? cap(el.querySelector('title').textContent, 80) : (item.label || null);
  }
  return item;
}

// Content boxes: leaves of layout (text blocks, media, controls) for alignment and for
// comparing engines; null when over budget.
function boxesOf({ MAX, over, shown, all }) {
  const boxes = [];
  for (const el of all) {
    if (over()) return null;
    if (boxes.length >= MAX) break;
    const tag = el.tagName.toLowerCase();
    if (['script', 'style', 'br', 'option', 'source', 'track', 'path', 'g'].includes(tag) || (el.closest('svg') && tag !== 'svg')) continue;
    const cs = getComputedStyle(el);
    if (!shown(el, cs)) continue;
    const hasText = [...el.childNodes].some((n) => n.nodeType === 3 && n.nodeValue.trim());
    const leaf = hasText || ['img', 'video', 'canvas', 'svg', 'input', 'button', 'select', 'textarea', 'iframe'].includes(tag);
    if (!leaf && cs.display.startsWith('inline')) continue;
    boxes.push({ path: pathOf(el), tag, box: pageBox(el), leaf, parent: el.parentElement ? pathOf(el.parentElement) : '',
      display: cs.display, position: cs.position });
  }
  return boxes;
}

function landmarksOf({ shown }) {
  const landmarks = {};
  for (const [name, selector] of [['header', 'header, [role=banner]'], ['nav', 'nav, [role=navigation]'],
    ['main', 'main, [role=main]'], ['footer', 'footer, [role=contentinfo]'], ['h1', 'h1']]) {
    const el = document.querySelector(selector);
    if (el && shown(el)) landmarks[name] = pageBox(el);
  }
  return landmarks;
}

// Tap targets (for phones).
function targetsOf({ MAX, shown }) {
  const targets = [];
  for (const el of document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea, [role=button], [onclick]')) {
    if (targets.length >= MAX) break;
    if (!shown(el)) continue;
    const r = el.getBoundingClientRect();
    const inline = el.tagName === 'A' && !!el.closest('p, li, td, dd, span, label') && getComputedStyle(el).display.startsWith('inline');
    targets.push({ path: pathOf(el), w: Math.round(r.width), h: Math.round(r.height), inline });
  }
  return targets;
}

const linksOf = (MAX) => [...document.querySelectorAll('a[href]')].slice(0, MAX).map((a) => ({ href: a.getAttribute('href'), resolved: a.href, text: cap(a.innerText, 80) }));
