// The explorer's observer's helpers (pipeline/stages/exploring/observe.mjs): its
// fingerprint hash, text clipping and quoting, roles, hover rules, link targets.
import assert from 'node:assert/strict';
import test from 'node:test';
import { hash, hoverPrefixes, linkOf, sampled } from '../../pipeline/stages/exploring/observe.mjs';
import { clip, nextText, q, roleOf } from '../../pipeline/stages/exploring/naming.mjs';
import { Element } from './fakedom.mjs';

const el = (tag, attrs = {}, extra = {}) => Object.assign(new Element(tag, { attrs }), extra);

test('hash: 16 hex digits, stable, and different for different text', () => {
  assert.match(hash(''), /^[0-9a-f]{16}$/);
  assert.equal(hash('button,div\nAdd task'), hash('button,div\nAdd task'));
  assert.notEqual(hash('button,div\nAdd task'), hash('button,div\nAdd tasks'));
  // the state fingerprints stored by earlier runs stay comparable
  assert.equal(hash('abc'), '1a47e90be11fed4a');
});

test('clip folds whitespace and cuts with an ellipsis; q quotes for a selector', () => {
  assert.equal(clip('  Buy\n\n milk  ', 80), 'Buy milk');
  assert.equal(clip('abcdefghij', 5), 'abcd…');
  assert.equal(clip(null, 5), '');
  assert.equal(q('say "hi" \\ bye'), '"say \\"hi\\" \\\\ bye"');
});

test('roleOf: explicit roles first, then what the tag and its type mean', () => {
  assert.equal(roleOf(el('div', { role: 'tab selected' })), 'tab');
  assert.equal(roleOf(el('a', { href: '#' })), 'link');
  assert.equal(roleOf(el('a')), '');
  assert.equal(roleOf(el('summary')), 'button');
  assert.equal(roleOf(el('select', {}, { multiple: false, size: 0 })), 'combobox');
  assert.equal(roleOf(el('select', {}, { multiple: true, size: 0 })), 'listbox');
  assert.equal(roleOf(el('input', { type: 'CHECKBOX' })), 'checkbox');
  assert.equal(roleOf(el('input', { type: 'range' })), 'slider');
  assert.equal(roleOf(el('input', { type: 'date' })), 'textbox');
  assert.equal(roleOf(el('input')), 'textbox');
  assert.equal(roleOf(el('h3')), 'heading');
  assert.equal(roleOf(el('section')), '');
  assert.equal(roleOf(el('section', { 'aria-label': 'News' })), 'region');
});

test("nextText reads an unlabeled checkbox by the text after it, but not past another control", () => {
  const text = (t) => ({ nodeType: 3, textContent: t, nextSibling: null });
  const box = { nextSibling: null };
  const words = text('  Buy milk ');
  box.nextSibling = words;
  assert.equal(nextText(box), 'Buy milk');
  const control = { nodeType: 1, textContent: 'x', matches: () => true, nextSibling: text('later') };
  assert.equal(nextText({ nextSibling: control }), '');
  assert.equal(nextText({ nextSibling: null }), '');
});

test('hoverPrefixes: "X:hover Y" gives X, in nested rules too; a bare :hover or a cross-origin sheet gives nothing', () => {
  const sheets = [
    { cssRules: [{ selectorText: '.menu:hover .submenu, a:hover' }, { selectorText: 'li:hover > ul' }] },
    { cssRules: [{ cssRules: [{ selectorText: '.card:hover + .tip' }] }] },
    { get cssRules() { throw new Error('SecurityError'); } },
  ];
  assert.deepEqual(hoverPrefixes(sheets), ['.menu', 'li', '.card']);
  const many = [{ cssRules: Array.from({ length: 80 }, (_, i) => ({ selectorText: `.x${i}:hover .y` })) }];
  assert.equal(hoverPrefixes(many).length, 60);
});

test('linkOf: a link leaves the app when it goes to another origin, or to mail, phone, ftp', () => {
  const here = 'http://127.0.0.1:5173/app/index.html';
  const origin = 'http://127.0.0.1:5173';
  assert.deepEqual(linkOf('page.html', here, origin), { resolved: 'http://127.0.0.1:5173/app/page.html', external: false });
  assert.deepEqual(linkOf('https://example.org/x', here, origin), { resolved: 'https://example.org/x', external: true });
  assert.equal(linkOf('mailto:a@b.c', here, origin).external, true);
  assert.equal(linkOf('javascript:void(0)', here, origin).external, false);
  assert.deepEqual(linkOf('http://[bad', here, origin), { resolved: null, external: false });
});

test('sampled: few siblings are all offered; many are offered every n-th, over the whole run', () => {
  assert.ok([0, 1, 2, 39].every((i) => sampled(i, 40, 40)));
  const grid = Array.from({ length: 576 }, (_, i) => i).filter((i) => sampled(i, 576, 40));
  assert.equal(grid.length, 39);  // every 15th of 576
  assert.ok(grid.at(-1) > 550, 'the last rows are offered too');
});

test('clip never cuts an emoji in half', () => {
  const text = 'ab🙂cd';  // 🙂 is two UTF-16 units, at 2 and 3
  assert.equal(clip(text, 4), 'ab…');  // the cut would fall between its halves
  assert.equal(clip(text, 5), 'ab🙂…');
  assert.ok(!/[\uD800-\uDBFF]…$/.test(clip('x'.repeat(10) + '🙂'.repeat(10), 12)));
});
