// The blank-page check's helper (pipeline/kits/page/shows.mjs): what counts as a
// painted box when a page has no text, media or control.
import assert from 'node:assert/strict';
import test from 'node:test';
import { painted } from '../../pipeline/kits/page/shows.mjs';

const plain = {
  backgroundColor: 'rgba(0, 0, 0, 0)', backgroundImage: 'none', boxShadow: 'none',
  borderTopWidth: '0px', borderTopStyle: 'none', borderRightWidth: '0px', borderRightStyle: 'none',
  borderBottomWidth: '0px', borderBottomStyle: 'none', borderLeftWidth: '0px', borderLeftStyle: 'none',
};

test('painted: a background unlike the body\'s, an image, a border or a shadow', () => {
  const body = 'rgb(255, 255, 255)';
  assert.equal(painted(plain, body), false);
  assert.equal(painted({ ...plain, backgroundColor: body }, body), false, "the body's own colour paints nothing new");
  assert.equal(painted({ ...plain, backgroundColor: 'rgb(30, 60, 90)' }, body), true);
  assert.equal(painted({ ...plain, backgroundImage: 'linear-gradient(red, blue)' }, body), true);
  assert.equal(painted({ ...plain, borderTopWidth: '2px', borderTopStyle: 'solid' }, body), true);
  assert.equal(painted({ ...plain, borderTopWidth: '2px' }, body), false, 'a border without a style is not drawn');
  assert.equal(painted({ ...plain, boxShadow: 'rgb(0, 0, 0) 0px 1px 2px 0px' }, body), true);
  // a tic-tac-toe board drawn with right and bottom borders only (Tailwind's border-r-2, border-b-2)
  assert.equal(painted({ ...plain, borderRightWidth: '2px', borderRightStyle: 'solid' }, body), true);
  assert.equal(painted({ ...plain, borderBottomWidth: '2px', borderBottomStyle: 'solid' }, body), true);
  assert.equal(painted({ ...plain, borderLeftWidth: '2px' }, body), false, 'a left border without a style is not drawn');
});
