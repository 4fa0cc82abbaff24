// What an action can leave beside the DOM (pipeline/stages/exploring/effects.mjs): the
// fingerprint of the data an app keeps, and how a canvas reads.
import assert from 'node:assert/strict';
import test from 'node:test';
import { kept, thumbnail, KEPT_CHARS, SIDE } from '../../pipeline/stages/exploring/effects.mjs';

const storage = (entries) => ({
  get length() { return Object.keys(entries).length; },
  key: (i) => Object.keys(entries)[i],
  getItem: (k) => (k in entries ? entries[k] : null),
});
const win = (local, session = {}, cookie = '') => ({
  localStorage: storage(local), sessionStorage: storage(session), document: {cookie},
});

test('kept: nothing kept is "", and the same data in another order is the same fingerprint', () => {
  assert.equal(kept(win({})), '');
  assert.equal(kept(win({a: '1', b: '2'})), kept(win({b: '2', a: '1'})));
  assert.match(kept(win({a: '1'})), /^[0-9a-f]{8}$/);
});

test('kept: a value, a key, session data or a cookie changed is another fingerprint', () => {
  const base = kept(win({todos: '[1]'}));
  assert.notEqual(kept(win({todos: '[1,2]'})), base);
  assert.notEqual(kept(win({todo: '[1]'})), base);
  assert.notEqual(kept(win({todos: '[1]'}, {tab: 'x'})), base);
  assert.notEqual(kept(win({todos: '[1]'}, {}, 'theme=dark')), base);
  assert.equal(kept(win({}, {}, 'b=2; a=1')), kept(win({}, {}, 'a=1; b=2')));
});

test('kept: storage that refuses to be read (an opaque origin) is left out, never thrown', () => {
  const refusing = {document: {cookie: ''}};
  Object.defineProperty(refusing, 'localStorage', {get() { throw new Error('SecurityError'); }});
  Object.defineProperty(refusing, 'sessionStorage', {get() { throw new Error('SecurityError'); }});
  assert.equal(kept(refusing), '');
});

test('kept: past its reading limit a value stands in by its length', () => {
  const big = 'x'.repeat(KEPT_CHARS);
  assert.equal(kept(win({a: big, b: 'y'.repeat(10)})), kept(win({a: big, b: 'z'.repeat(10)})));
  assert.notEqual(kept(win({a: big, b: 'y'.repeat(10)})), kept(win({a: big, b: 'y'.repeat(11)})));
});

// a document whose small canvas gives back `data` (SIDE x SIDE RGBA), or throws
const docGiving = (data) => ({
  createElement: () => ({getContext: () => ({
    drawImage() { if (data === 'tainted') throw new Error('SecurityError'); },
    getImageData: () => ({data}),
  })}),
});

test('thumbnail: drawn pixels at 4 bits a channel, null when nothing is drawn, undefined when unreadable', () => {
  const blank = new Uint8ClampedArray(SIDE * SIDE * 4);
  assert.equal(thumbnail(docGiving(blank), {}), null);
  const drawn = blank.slice(); drawn[3] = 255; drawn[0] = 0xf0;
  const text = thumbnail(docGiving(drawn), {});
  assert.equal(text.length, SIDE * SIDE * 4);
  assert.equal(text.slice(0, 4), 'f00f');
  assert.equal(thumbnail(docGiving('tainted'), {}), undefined);
});
