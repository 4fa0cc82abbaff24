// Where a pointer action on one element lands, when Playwright's own checks before it
// would pass at once; null when they might not, and the caller then goes Playwright's way
// (kits/tab.py). Runs in the isolated world; it reads the page and changes nothing.
//
// Playwright's click and hover wait for the element to be visible, stable (the same box
// over two animation frames), enabled and not inert (a click, not a hover), scroll it into
// view, and check that the point they press is on it. Those waits cost two frames even on
// a page where nothing moves. Here the same questions are asked in one call:
//   - one element matches the selector, in the document itself (not in a shadow root);
//   - it is visible (checkVisibility with visibility checked; opacity 0 counts as visible,
//     as for Playwright), has one box and that box is entirely in the viewport (nothing to
//     scroll);
//   - stable: on an idle page (idle.mjs: nothing pending that could move it) it is;
//     elsewhere its box must be the same in two animation frames in a row;
//   - for a click (`enabled`): not disabled, itself, by a fieldset or by aria-disabled on it
//     or an ancestor, nor is a label's control; not inert, and no modal dialog is open;
//   - the point (its middle, or `at` fractions of its box past the border, as Playwright's
//     position) hits it or something inside it.
// A link, an area and a form's submit button are never aimed here: a click on them may
// start a navigation, which Playwright's click waits for and a bare mouse click does not.
import { idle } from './idle.mjs';

export default async function aim({selector, at, enabled, nonce}) {
  let found;
  try { found = document.querySelectorAll(selector); } catch { return null; }
  if (found.length !== 1) return null;
  const el = found[0];
  if (el.getRootNode() !== document || !el.isConnected) return null;
  if (el.closest('a[href], area[href]') || submits(el)) return null;
  if (enabled && !usable(el)) return null;
  let box = settledBox(el, nonce);
  if (box === undefined) box = await afterFrame(el);  // (not for an element never aimable: no frames spent on it)
  if (!box) return null;
  const point = pointOf(el, box, at);
  if (!lands(el, point)) return null;
  return point;
}

function submits(el) {
  const control = el.closest('button, input');
  return !!(control && control.form && ['submit', 'image'].includes(control.type));
}

function usable(el) {
  if (el.closest('[aria-disabled="true"], [inert]') || el.matches(':disabled')) return false;
  if (el.matches('fieldset:disabled *')) return false;
  const control = el.tagName === 'LABEL' ? el.control : null;
  if (control && (control.matches(':disabled') || control.closest('[aria-disabled="true"]'))) return false;
  try { if (document.querySelector(':modal')) return false; } catch { return false; }
  return true;
}

// Its box when it is visible, whole in the viewport and cannot move now; undefined when it
// may move (ask over two frames); null when it is not aimable at all.
function settledBox(el, nonce) {
  const box = shown(el);
  if (!box) return null;
  return idle(nonce) ? box : undefined;
}

function shown(el) {
  if (el.checkVisibility && !el.checkVisibility({visibilityProperty: true})) return null;
  if (getComputedStyle(el).visibility !== 'visible') return null;
  const rects = el.getClientRects();
  if (rects.length !== 1) return null;
  const r = el.getBoundingClientRect();
  if (!(r.width > 0 && r.height > 0)) return null;
  if (r.left < 0 || r.top < 0 || r.right > window.innerWidth || r.bottom > window.innerHeight) return null;
  return {x: r.left, y: r.top, width: r.width, height: r.height};
}

// As Playwright asks it: the box read in one animation frame and again in the next.
async function afterFrame(el) {
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  await frame();
  const before = shown(el);
  if (!before) return null;
  await frame();
  const after = shown(el);
  if (!after || after.x !== before.x || after.y !== before.y || after.width !== before.width
      || after.height !== before.height) return null;
  return after;
}

// Playwright's point: the middle of the box, or the box's corner inside its border plus the
// offset; rounded down to hundredths as Playwright rounds it.
function pointOf(el, box, at) {
  let x, y;
  if (at) {
    const style = getComputedStyle(el);
    x = box.x + parseInt(style.borderLeftWidth || '', 10) + box.width * at[0];
    y = box.y + parseInt(style.borderTopWidth || '', 10) + box.height * at[1];
  } else {
    x = box.x + box.width / 2;
    y = box.y + box.height / 2;
  }
  return [(x * 100 | 0) / 100, (y * 100 | 0) / 100];
}

function lands(el, [x, y]) {
  let hit = document.elementFromPoint(x, y);
  while (hit && hit !== el) hit = hit.assignedSlot || hit.parentElement || (hit.getRootNode().host || null);
  return hit === el;
}
