// The quality stage's probe's helpers (pipeline/kits/page/probe.mjs): capping,
// element paths, style facts, cards, icon fonts, emoji icons.
import assert from 'node:assert/strict';
import test from 'node:test';
import { cap, fontIconSet, isCard, isEmojiIcon, pathOf, styleOf, STYLE } from '../../pipeline/kits/page/probe.mjs';
import { Element, box, page } from './fakedom.mjs';

test('cap folds whitespace and cuts (no ellipsis: evidence, not prose)', () => {
  assert.equal(cap('  a \n b  '), 'a b');
  assert.equal(cap('x'.repeat(250)).length, 200);
  assert.equal(cap('abcdef', 3), 'abc');
  assert.equal(cap(undefined), '');
});

test('pathOf names an element by tag and index among siblings of its tag, from <body> down', () => {
  const a = new Element('p');
  const b = new Element('div');
  const c = new Element('p');
  const inner = new Element('span');
  c.append(inner);
  page([a, b, c]);
  assert.equal(pathOf(a), 'body:1>p:1');
  assert.equal(pathOf(c), 'body:1>p:2');
  assert.equal(pathOf(inner), 'body:1>p:2>span:1');
});

test('styleOf keeps the compared properties, a shadow as "shadow", and a control\'s height', () => {
  const cs = Object.fromEntries(STYLE.map((p) => [p, `${p}-value`]));
  cs.boxShadow = 'rgba(0, 0, 0, 0.2) 0px 2px 4px 0px';
  const facts = styleOf(cs, 35.6);
  assert.equal(facts.boxShadow, 'shadow');
  assert.equal(facts.fontSize, 'fontSize-value');
  assert.equal(facts.height, '36px');
  assert.equal('height' in styleOf({ ...cs, boxShadow: 'none' }), false);
  assert.equal(styleOf({ ...cs, boxShadow: 'none' }).boxShadow, 'none');
});

test('isCard: framed, filled or rounded, not nearly full width, not tiny', () => {
  const framed = { boxShadow: 'none', borderTopWidth: '1px', borderTopStyle: 'solid', backgroundColor: 'rgb(255, 255, 255)', borderRadius: '0px' };
  assert.equal(isCard(framed, box(0, 0, 300, 200), 1280), true);
  assert.equal(isCard({ ...framed, borderTopStyle: 'none' }, box(0, 0, 300, 200), 1280), false, 'no frame');
  assert.equal(isCard({ ...framed, backgroundColor: 'rgba(0, 0, 0, 0)' }, box(0, 0, 300, 200), 1280), false, 'neither filled nor rounded');
  assert.equal(isCard({ ...framed, backgroundColor: 'transparent', borderRadius: '8px' }, box(0, 0, 300, 200), 1280), true);
  assert.equal(isCard(framed, box(0, 0, 1200, 200), 1280), false, 'a full-width band');
  assert.equal(isCard(framed, box(0, 0, 60, 200), 1280), false);
});

test('fontIconSet: the icon font by family or class, and which set', () => {
  assert.equal(fontIconSet('"Font Awesome 6 Free" "Font Awesome 6 Free"', 'fa-solid fa-star', ''), 'font awesome');
  assert.equal(fontIconSet('Arial Arial', 'fa fa-star', ''), 'fa');
  assert.equal(fontIconSet('"Material Icons" normal', 'material-icons', 'home'), 'material icons');
  assert.equal(fontIconSet('Arial Arial', 'bi-alarm', ''), 'bi');
  assert.equal(fontIconSet('Arial Arial', 'icon-text', 'a label much longer than any icon ligature'), null);
  assert.equal(fontIconSet('Arial Arial', 'button primary', ''), null);
});

test('isEmojiIcon: a short text with a pictograph, or one that starts with one', () => {
  assert.equal(isEmojiIcon('🗑️'), true);
  assert.equal(isEmojiIcon('⭐ 4'), true);
  assert.equal(isEmojiIcon('🎉 Party time at the office'), true);
  assert.equal(isEmojiIcon('Party time 🎉'), false);
  assert.equal(isEmojiIcon('Save'), false);
});
