// What "visible" means, once, for every script of ours that asks: the explorer's
// observer (stages/exploring/observe.mjs), the quality stage's probe
// (probe.mjs) and the blank-page check (shows.mjs). It reads styles and
// boxes; it never changes the page.
//
// An element is visible when it paints something a person could see on the page, now
// or by scrolling:
//   - it is rendered and nothing hides it: not display:none (itself or an ancestor),
//     not inside a closed <details> (but its summary) or a content-visibility:hidden
//     box, no opacity 0 on it or an ancestor, its own visibility is "visible" (hidden
//     and collapse are not; a child may be visible inside a hidden parent) — as the
//     browser's Element.checkVisibility says with opacity and visibility checked;
//   - its box is not empty (width and height above 0) and more than a 1×1 px speck
//     (the "visually hidden" idiom of screen-reader text), and not clipped to nothing
//     by a clip: rect(0 0 0 0) of its own;
//   - it is not clipped away: an ancestor that clips its overflow (overflow hidden or
//     clip, or a scroller with no room) and is in its containing-block chain (an
//     absolutely positioned box escapes the non-positioned ancestors between it and
//     its containing block; a fixed one all but a transformed ancestor) does not
//     overlap it — a collapsed accordion's content, a carousel's other slides;
//   - it is on the page: not entirely left of or above the page's origin, where no
//     scrolling reaches (left: -9999px; a drawer slid out with translateX(-100%)), and
//     a fixed box not entirely outside the viewport. Inside a scroller the scroller
//     decides: its content is reached by scrolling it.
// aria-hidden is not visibility: a decorative icon marked so is on screen (the
// observer leaves such elements out of its accessibility tree, not out of the page).
//
// visibility(view) gives the two questions, with the styles and boxes it read kept
// for the one look it serves (create one per look: a page changes between looks):
//   visible(el, style?)  the element itself is visible
//   gone(el, style?)     neither it nor anything inside it can be visible (display
//                        none, opacity 0, closed details, content-visibility hidden),
//                        so a walk over the tree need not go in
const CLIPS = new Set(['hidden', 'clip']);
const NOTHING = /^rect\(0(px)?,? 0(px)?,? 0(px)?,? 0(px)?\)$/;
const CHECKS = { opacityProperty: true, visibilityProperty: true };
const SUBTREE_CHECKS = { opacityProperty: true };

export function visibility(view) {
  const read = memo(view);
  const visible = (el, style) => {
    style = style || read.styleOf(el);
    if (!rendered(el, style)) return false;
    const r = read.boxOf(el);
    if (!(r.width > 0 && r.height > 0) || (r.width <= 1 && r.height <= 1)) return false;
    if (style.position !== 'static' && NOTHING.test(style.clip || '')) return false;
    return placed(view, read, el, style, r);
  };
  const gone = (el, style) => {
    style = style || read.styleOf(el);
    if (style.display === 'none') return true;
    if (style.display === 'contents') return false;  // no box of its own; its children have theirs
    if (typeof el.checkVisibility === 'function') return !el.checkVisibility(SUBTREE_CHECKS);
    return Number(style.opacity) === 0;
  };
  return { visible, gone };
}

// An element's computed style and box, each read once per look.
function memo(view) {
  const doc = view.document;
  const styles = new Map();
  const boxes = new Map();
  const styleOf = (el) => {
    let style = styles.get(el);
    if (!style) { style = view.getComputedStyle(el); styles.set(el, style); }
    return style;
  };
  const boxOf = (el) => {
    let box = boxes.get(el);
    if (!box) { box = el.getBoundingClientRect(); boxes.set(el, box); }
    return box;
  };
  return { doc, styleOf, boxOf };
}

function rendered(el, style) {
  if (typeof el.checkVisibility === 'function') return el.checkVisibility(CHECKS);
  return style.display !== 'none' && style.display !== 'contents' && style.visibility === 'visible'
    && Number(style.opacity) !== 0;
}

// False when an ancestor clips the box away or it lies off the page. A scroller on the
// way (per axis) takes the page's place: its content is reached by scrolling it.
function placed(view, read, el, style, r) {
  const doc = read.doc;
  let position = style.position;
  let scrollsX = false, scrollsY = false;
  for (let a = el.parentElement; a && a !== doc.body && a !== doc.documentElement; a = a.parentElement) {
    const s = read.styleOf(a);
    const transformed = s.transform !== 'none';
    if (position === 'fixed' && !transformed) continue;
    if (position === 'absolute' && s.position === 'static' && !transformed) continue;
    if (s.overflowX !== 'visible' || s.overflowY !== 'visible') {
      const c = read.boxOf(a);
      const clipsX = CLIPS.has(s.overflowX) || (s.overflowX !== 'visible' && c.width <= 0);
      const clipsY = CLIPS.has(s.overflowY) || (s.overflowY !== 'visible' && c.height <= 0);
      if (clipsX && (r.right <= c.left || r.left >= c.right)) return false;
      if (clipsY && (r.bottom <= c.top || r.top >= c.bottom)) return false;
      if (!clipsX && s.overflowX !== 'visible') scrollsX = true;
      if (!clipsY && s.overflowY !== 'visible') scrollsY = true;
    }
    position = s.position === 'fixed' || s.position === 'absolute' ? s.position : 'static';
  }
  if (position === 'fixed') {
    return !(r.right <= 0 || r.bottom <= 0 || r.left >= view.innerWidth || r.top >= view.innerHeight);
  }
  return (scrollsX || r.right + view.scrollX > 0) && (scrollsY || r.bottom + view.scrollY > 0);
}
