// Stand-ins for the few DOM pieces our page scripts' helpers read: elements with a
// computed style, a box, attributes and children, and a window (a "view") that
// computes styles and scrolls. checkVisibility is the browser's, simplified to what
// the engines do for the properties we set (display none or an ancestor's, opacity 0
// on the way up, a closed <details>, content-visibility hidden, own visibility).
export const STYLE = {
  display: 'block', visibility: 'visible', opacity: '1', position: 'static', overflowX: 'visible',
  overflowY: 'visible', transform: 'none', clip: 'auto', contentVisibility: 'visible',
};

export function box(x, y, width, height) {
  return { x, y, width, height, left: x, top: y, right: x + width, bottom: y + height };
}

export class Element {
  constructor(tag, { style = {}, rect = box(0, 0, 100, 20), attrs = {}, children = [], open, text } = {}) {
    this.tagName = tag.toUpperCase();
    this.nodeType = 1;
    this.style = { ...STYLE, ...style };
    this.rect = rect;
    this.attrs = { ...attrs };
    this.parentElement = null;
    this.children = [];
    this.open = open;
    this.textContent = text || '';
    for (const child of children) this.append(child);
  }
  append(child) {
    child.parentElement = this;
    child.ownerDocument = this.ownerDocument;
    this.children.push(child);
    return child;
  }
  getAttribute(name) { return name in this.attrs ? String(this.attrs[name]) : null; }
  hasAttribute(name) { return name in this.attrs; }
  getBoundingClientRect() { return this.rect; }
  get previousElementSibling() {
    const siblings = this.parentElement ? this.parentElement.children : [];
    return siblings[siblings.indexOf(this) - 1] || null;
  }
  checkVisibility({ opacityProperty = false, visibilityProperty = false } = {}) {
    if (this.style.display === 'contents') return false;
    for (let node = this, child = null; node; child = node, node = node.parentElement) {
      if (node.style.display === 'none') return false;
      if (opacityProperty && Number(node.style.opacity) === 0) return false;
      if (child && node.style.contentVisibility === 'hidden') return false;
      if (child && node.tagName === 'DETAILS' && !node.open && !(child.tagName === 'SUMMARY' && node.children[0] === child)) return false;
    }
    return !(visibilityProperty && this.style.visibility !== 'visible');
  }
}

// A document whose <html> holds `body`, and a window over it.
export function page(bodyChildren, { width = 1280, height = 800, scrollX = 0, scrollY = 0 } = {}) {
  const html = new Element('html');
  const document = { documentElement: html };
  html.ownerDocument = document;
  const body = new Element('body', { rect: box(0, 0, width, height) });
  body.ownerDocument = document;
  html.append(body);
  for (const child of bodyChildren) body.append(child);
  const fix = (el) => { el.ownerDocument = document; el.children.forEach(fix); };
  fix(html);
  document.body = body;
  const view = { document, innerWidth: width, innerHeight: height, scrollX, scrollY, getComputedStyle: (el) => el.style };
  return { document, view, body };
}
