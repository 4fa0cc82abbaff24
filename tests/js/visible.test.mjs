// The one definition of "visible" (pipeline/kits/page/visible.mjs), on stand-in
// elements. Real Chromium: tests/integration/exploring/test_one_visible.py.
import assert from 'node:assert/strict';
import test from 'node:test';
import { visibility } from '../../pipeline/kits/page/visible.mjs';
import { Element, box, page } from './fakedom.mjs';

const el = (tag, options) => new Element(tag, options);
const judge = (children, options) => visibility(page(children, options).view);

test('what the browser hides is not visible: display, visibility, opacity on the way up, closed details', () => {
  const none = el('div', { style: { display: 'none' } });
  const hiddenParent = el('div', { style: { visibility: 'hidden' }, children: [el('span', { style: { visibility: 'hidden' } })] });
  const faded = el('div', { style: { opacity: '0' }, children: [el('button')] });
  const summary = el('summary');
  const details = el('details', { open: false, children: [summary, el('p')] });
  const collapse = el('tr', { style: { visibility: 'collapse' } });
  const seen = judge([none, hiddenParent, faded, details, collapse]);
  assert.equal(seen.visible(none), false);
  assert.equal(seen.visible(hiddenParent.children[0]), false);
  assert.equal(seen.visible(faded.children[0]), false, 'a button inside an opacity: 0 box');
  assert.equal(seen.visible(details.children[1]), false, 'the body of a closed <details>');
  assert.equal(seen.visible(summary), true, 'its summary');
  assert.equal(seen.visible(collapse), false);
});

test('a visible child of a hidden or empty parent is visible; the parent is not', () => {
  const shown = el('button', { style: { visibility: 'visible' } });
  const hidden = el('div', { style: { visibility: 'hidden' }, children: [shown] });
  const floating = el('div', { style: { position: 'absolute' }, rect: box(0, 200, 80, 20) });
  const empty = el('div', { rect: box(0, 40, 1280, 0), children: [floating] });
  const inContents = el('button');
  const contents = el('div', { style: { display: 'contents' }, rect: box(0, 0, 0, 0), children: [inContents] });
  const seen = judge([hidden, empty, contents]);
  assert.equal(seen.visible(hidden), false);
  assert.equal(seen.visible(shown), true);
  assert.equal(seen.visible(empty), false, 'zero height');
  assert.equal(seen.visible(floating), true);
  assert.equal(seen.visible(contents), false, 'display: contents has no box of its own');
  assert.equal(seen.visible(inContents), true);
});

test('gone: nothing inside can be visible, so a walk need not go in', () => {
  const seen = judge([]);
  assert.equal(seen.gone(el('div', { style: { display: 'none' } })), true);
  assert.equal(seen.gone(el('div', { style: { opacity: '0' } })), true);
  assert.equal(seen.gone(el('div', { style: { visibility: 'hidden' } })), false, 'a child may be visibility: visible');
  assert.equal(seen.gone(el('div', { style: { display: 'contents' } })), false);
  assert.equal(seen.gone(el('div', { rect: box(0, 0, 0, 0) })), false, 'a child may overflow an empty box');
  const details = el('details', { open: false, children: [el('summary'), el('div')] });
  judge([details]);
  assert.equal(seen.gone(details.children[1]), true);
});

test('a speck is not visible, a thin line is; a box clipped to nothing is not', () => {
  const speck = el('a', { style: { position: 'absolute' }, rect: box(-1, 84, 1, 1) });
  const line = el('hr', { rect: box(0, 100, 1280, 1) });
  const clipped = el('span', { style: { position: 'absolute', clip: 'rect(0px, 0px, 0px, 0px)' }, rect: box(10, 10, 200, 20) });
  const seen = judge([speck, line, clipped]);
  assert.equal(seen.visible(speck), false, 'the 1×1 "visually hidden" idiom');
  assert.equal(seen.visible(line), true);
  assert.equal(seen.visible(clipped), false);
});

test('an ancestor that clips its overflow hides what lies outside it', () => {
  const inside = el('a', { rect: box(0, 85, 80, 17) });
  const accordion = el('div', { style: { overflowY: 'hidden', overflowX: 'hidden' }, rect: box(0, 85, 1280, 0), children: [inside] });
  const slideOut = el('li', { rect: box(-600, 0, 600, 300) });
  const slideIn = el('li', { rect: box(0, 0, 600, 300) });
  const carousel = el('div', { style: { overflowX: 'hidden', overflowY: 'hidden' }, rect: box(0, 0, 600, 300),
    children: [el('ul', { rect: box(-600, 0, 1800, 300), children: [slideOut, slideIn] })] });
  const seen = judge([accordion, carousel]);
  assert.equal(seen.visible(inside), false, "a collapsed accordion's content");
  assert.equal(seen.visible(slideOut), false, "a carousel's other slide");
  assert.equal(seen.visible(slideIn), true);
});

test('an absolutely positioned box escapes the clipping of ancestors below its containing block', () => {
  const escapes = el('a', { style: { position: 'absolute' }, rect: box(0, 300, 74, 18) });
  const caught = el('a', { style: { position: 'absolute' }, rect: box(0, 300, 74, 18) });
  const plain = el('div', { style: { overflowX: 'hidden', overflowY: 'hidden' }, rect: box(0, 85, 1280, 0), children: [escapes] });
  const positioned = el('div', { style: { overflowX: 'hidden', overflowY: 'hidden', position: 'relative' }, rect: box(0, 85, 1280, 0), children: [caught] });
  const fixed = el('div', { style: { position: 'fixed' }, rect: box(0, 0, 100, 20) });
  const clipsFixed = el('div', { style: { overflowX: 'hidden', overflowY: 'hidden' }, rect: box(500, 500, 10, 10), children: [fixed] });
  const seen = judge([plain, positioned, clipsFixed]);
  assert.equal(seen.visible(escapes), true);
  assert.equal(seen.visible(caught), false);
  assert.equal(seen.visible(fixed), true, 'a fixed box escapes every ancestor but a transformed one');
});

test('off the page: left of or above its origin, or a fixed box outside the viewport', () => {
  const left = el('a', { style: { position: 'absolute' }, rect: box(-9999, 85, 21, 18) });
  const link = el('a', { rect: box(-200, 0, 44, 17) });
  const drawer = el('nav', { style: { position: 'fixed', transform: 'matrix(1, 0, 0, 1, -200, 0)' }, rect: box(-200, 0, 200, 18), children: [link] });
  const toast = el('div', { style: { position: 'fixed' }, rect: box(100, 900, 200, 40) });
  const below = el('p', { rect: box(0, 2400, 300, 20) });
  const seen = judge([left, drawer, toast, below]);
  assert.equal(seen.visible(left), false, 'left: -9999px');
  assert.equal(seen.visible(drawer), false);
  assert.equal(seen.visible(link), false, 'a link in a drawer slid out of the viewport');
  assert.equal(seen.visible(toast), false, 'a fixed toast below the viewport');
  assert.equal(seen.visible(below), true, 'further down the page: a scroll away');
});

test('inside a scroller, the scroller decides: its content is a scroll away', () => {
  const above = el('li', { rect: box(0, -950, 300, 20) });
  const far = el('li', { rect: box(0, 1500, 300, 20) });
  const list = el('ul', { style: { overflowY: 'auto' }, rect: box(0, 50, 300, 400), children: [above, far] });
  const empty = el('ul', { style: { overflowY: 'auto' }, rect: box(0, 500, 300, 0), children: [el('li', { rect: box(0, 500, 300, 20) })] });
  const seen = judge([list, empty]);
  assert.equal(seen.visible(above), true, 'scrolled past, above the page origin');
  assert.equal(seen.visible(far), true);
  assert.equal(seen.visible(empty.children[0]), false, 'a scroller with no room shows nothing');
});

test('aria-hidden is not visibility', () => {
  const icon = el('span', { attrs: { 'aria-hidden': 'true' } });
  assert.equal(judge([icon]).visible(icon), true);
});

test('without Element.checkVisibility, the own styles decide', () => {
  const plain = el('div');
  const faded = el('div', { style: { opacity: '0' } });
  const hidden = el('div', { style: { visibility: 'hidden' } });
  for (const e of [plain, faded, hidden]) e.checkVisibility = undefined;
  const seen = judge([plain, faded, hidden]);
  assert.deepEqual([plain, faded, hidden].map((e) => seen.visible(e)), [true, false, false]);
  assert.equal(seen.gone(faded), true);
});
