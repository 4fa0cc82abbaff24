// The console bound's clipping (pipeline/kits/page/quiet.mjs): what one console call may
// still carry once it goes through.
import assert from 'node:assert/strict';
import test from 'node:test';
import { ARGS, clipped } from '../../pipeline/kits/page/quiet.mjs';

const slice = (text, n) => text.slice(0, n);

test('clipped: long strings are cut with an ellipsis, other arguments pass as they are', () => {
  const object = { a: 1 };
  const out = clipped(['x'.repeat(5000), 'short', 42, object], 100, slice);
  assert.equal(out[0], 'x'.repeat(100) + '…');
  assert.deepEqual(out.slice(1), ['short', 42, object]);
});

test('clipped: a call with a million arguments keeps the first ones only', () => {
  const many = Array.from({ length: 1000000 }, (_, i) => 'arg ' + i);
  const out = clipped(many, 100, slice);
  assert.equal(out.length, ARGS);
  assert.equal(out[ARGS - 1], 'arg ' + (ARGS - 1));
});
