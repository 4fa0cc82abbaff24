// What instrumenting reads from an app's syntax tree for the explorer
// (pipeline/stages/instrumenting/facts.js), with the real Babel parser and Istanbul.
import assert from 'node:assert/strict';
import test from 'node:test';
import { instrument, stage, tools } from './tools.mjs';

const { codeFacts, keyName } = stage('./facts.js');
const parser = tools('@babel/parser');

const factsOf = (code) => codeFacts(code, instrument(code, 'app.js').fc, parser, 'script');
const named = (facts, name) => Object.entries(facts.fns).find(([, fn]) => fn.name === name);

test('keyName: key names as Playwright presses them', () => {
  assert.equal(keyName('a'), 'a');
  assert.equal(keyName(' '), 'Space');
  assert.equal(keyName('Esc'), 'Escape');
  assert.equal(keyName('Left'), 'ArrowLeft');
  assert.equal(keyName('KeyW'), 'KeyW');
  assert.equal(keyName('Digit7'), 'Digit7');
  assert.equal(keyName('Enter'), 'Enter');
  assert.equal(keyName('click'), null);
  assert.equal(keyName(7), null);
});

test('keys compared against, with their modifiers and the function that reads them', () => {
  const facts = factsOf(`
    function onKey(e) {
      if (e.ctrlKey && e.key === 'z') undo();
      else if (e.key === 'Escape') close();
      switch (e.code) { case 'ArrowUp': up(); break; case 'KeyW': up(); break; }
      if (['Enter', ' '].includes(e.key)) submit();
    }
    document.addEventListener('keydown', onKey);`);
  const [fid] = named(facts, 'onKey');
  const keys = facts.keys.map((k) => `${k.mods.join('+')}${k.mods.length ? '+' : ''}${k.key}`).sort();
  assert.deepEqual(keys, ['ArrowUp', 'Control+z', 'Enter', 'Escape', 'KeyW', 'Space']);
  assert.ok(facts.keys.every((k) => k.fn === fid && k.hold === false));
  const z = facts.keys.find((k) => k.key === 'z');
  assert.ok(z.guards.length >= 1, 'the if that guards it, as an Istanbul branch arm');
});

test('held keys of a game loop, key tables and sequences', () => {
  const facts = factsOf(`
    const keys = {};
    const SHORTCUTS = { b: 'brush', e: 'eraser' };
    const KONAMI = ['ArrowUp', 'ArrowUp', 'ArrowDown', 'ArrowDown', 'b', 'a'];
    function loop() { if (keys.ArrowLeft) move(-1); if (keys[' ']) fire(); }
    function pick(e) { return SHORTCUTS[e.key]; }
    function secret(e) { return KONAMI.length; }`);
  const held = facts.keys.filter((k) => k.hold).map((k) => k.key).sort();
  assert.deepEqual(held, ['ArrowLeft', 'Space']);
  assert.deepEqual(facts.keys.filter((k) => !k.hold).map((k) => k.key).sort(), ['b', 'e']);
  assert.equal(facts.sequences.length, 1);
  assert.deepEqual(facts.sequences[0].keys, ['ArrowUp', 'ArrowUp', 'ArrowDown', 'ArrowDown', 'b', 'a']);
  assert.deepEqual(facts.sequences[0].users, [named(facts, 'secret')[0]]);
});

test('calls, nested functions that run with their parent (not handlers), timers', () => {
  const facts = factsOf(`
    const TICK = 250;
    function start() {
      [1, 2].forEach(function each() { draw(); });
      button.addEventListener('click', function later() { stop(); });
      setInterval(step, TICK);
      setTimeout(() => reset(), 1000);
    }`);
  const [startId, start] = named(facts, 'start');
  const [eachId] = named(facts, 'each');
  const [laterId] = named(facts, 'later');
  assert.ok(start.calls.includes('forEach') && start.calls.includes('setInterval') && start.calls.includes('step'));
  assert.ok(start.inner.includes(eachId), 'a forEach callback runs with start');
  assert.ok(!start.inner.includes(laterId), 'a click handler runs when clicked');
  const delays = facts.timers.map((t) => [t.fn, t.callee, t.delay]);
  assert.deepEqual(delays.find((t) => t[1] === 'step'), [startId, 'step', 250]);
  assert.ok(facts.timers.some((t) => t.delay === 1000 && t.callback !== null));
});

test('code it cannot parse has no facts; it never throws', () => {
  assert.equal(codeFacts('function (', { fnMap: {}, branchMap: {} }, parser, 'script'), null);
});

test('named functions and the names the script mentions: what nothing can call', () => {
  const facts = factsOf(`
    function used() { return 1; }
    function unused() { unused(); }
    const arrow = () => used();
    const orphan = function () {};
    function builds() { list.innerHTML = '<button onclick="fromMarkup(1)">x</button>'; }
    function fromMarkup(n) {}
    button.addEventListener('click', arrow);
    window.builds = builds;`);
  const names = Object.values(facts.named).sort();
  assert.deepEqual(names, ['arrow', 'builds', 'fromMarkup', 'orphan', 'unused', 'used']);
  for (const name of ['used', 'arrow', 'builds', 'fromMarkup']) assert.ok(facts.mentions.includes(name), name);
  assert.ok(!facts.mentions.includes('unused'), 'its own recursive call does not count');
  assert.ok(!facts.mentions.includes('orphan'), 'where it is bound is no use of it');
});

test('routes: hash routes in strings, strings compared with location.hash, router table paths', () => {
  const facts = factsOf(`
    const links = ['#/', '#/active', '#/completed'];
    window.addEventListener('hashchange', () => {
      if (location.hash === '#archive') show('archive');
    });
    const router = [{ path: '/about', component: About }, { path: '/user/:id', component: User }];
    const label = 'a # sign';`);
  assert.deepEqual(facts.routes.sort(), ['#/', '#/active', '#/completed', '#archive', '/about']);
});

test('routes: Angular\'s relative route paths, React Router\'s <Route path>, not any object with a path', () => {
  const angular = factsOf(`
    const routes = [{ path: '', component: List }, { path: 'active', component: List },
                    { path: 'done/all', loadComponent: () => Done }, { path: 'old', redirectTo: 'active' }];
    const files = [{ path: 'img/logo.png', size: 3 }, { path: 'readme', size: 1 }];`);
  assert.deepEqual(angular.routes.sort(), ['/active', '/done/all', '/old']);
  const jsx = codeFacts(`
    const App = () => <Routes><Route path="/" element={<Home />} /><Route path="/stats" element={<Stats />} />
      <Route path="/habit/:id" element={<Habit />} /></Routes>;`, instrument('const x = 1;', 'app.jsx').fc,
  parser, 'module');
  assert.deepEqual(jsx.routes.sort(), ['/', '/stats']);
});

test('held keys asked of an input helper: Input.isDown("Space"), keyPressed("KeyW")', () => {
  const facts = factsOf(`
    function update() {
      if (Input.isDown('Space') && cooldown <= 0) fire();
      if (keyPressed('KeyW')) thrust();
      if (isDown(42)) never();
    }`);
  const held = facts.keys.filter((k) => k.hold).map((k) => k.key).sort();
  assert.deepEqual(held, ['KeyW', 'Space']);
});

test('a player\'s controls read through a held-key map: keys[controls.left] with { left: "a" }', () => {
  const facts = factsOf(`
    const keys = {};
    function updateTank(tank, controls) {
      if (keys[controls.left]) tank.angle -= 1;
      if (keys[controls.fire]) shoot(tank);
    }
    function loop() { updateTank(p1, { left: 'a', fire: ' ' }); updateTank(p2, { left: 'ArrowLeft', fire: 'Enter' }); }`);
  const held = [...new Set(facts.keys.filter((k) => k.hold).map((k) => k.key))].sort();
  assert.deepEqual(held, ['ArrowLeft', 'Enter', 'Space', 'a']);
});

test('strings the code compares input with: ===, switch, includes, lists and tables looked up by a value', () => {
  const facts = factsOf(`
    const COUPONS = { SAVE20: 0.2, 'WELCOME10': 0.1 };
    const SEATS = ['A1', 'A2'];
    const TAKEN = new Set(['B1']);
    function check(pin, code, seat, kind, url) {
      if (pin === '1234') unlock();
      if (typeof pin === 'string' && 'a' === 'b') never();
      if (COUPONS[code]) discount();
      if (SEATS.includes(seat) && !TAKEN.has(seat)) book();
      if (['gold', 'silver'].includes(kind)) vip();
      if (url.startsWith('https://')) safe();
      switch (kind) { case 'bronze': break; }
      if (pin === '${'x'.repeat(65)}') never();
      if (event.target.tagName === 'INPUT' && event.key === 'Enter') submit();
      switch (event.code) { case 'KeyW': up(); }
    }`);
  assert.deepEqual([...facts.literals].sort(),
    ['1234', 'A1', 'A2', 'B1', 'SAVE20', 'WELCOME10', 'bronze', 'gold', 'https://', 'silver']);
});

test('regexes the code tests input with, directly or through a name, and pattern attributes it sets', () => {
  const facts = factsOf(`
    const BASE32 = /^[A-Z2-7]+=*$/;
    const rules = { email: new RegExp('^\\\\S+@\\\\S+$', 'i') };
    const unused = /never-tested/;
    function check(secret, code, email, input) {
      if (!BASE32.test(secret)) return;
      if (!/^\\d{6}$/.test(code)) return;
      if (!email.match(rules.email)) return;
      input.pattern = '[0-9]{4}';
      input.setAttribute('pattern', '[A-Z]{3}');
    }`);
  const found = facts.patterns.map((p) => `/${p.source}/${p.flags}`).sort();
  assert.deepEqual(found, ['/^(?:[0-9]{4})$/v', '/^(?:[A-Z]{3})$/v', '/^[A-Z2-7]+=*$/', '/^\\S+@\\S+$/i', '/^\\d{6}$/']);
});

test('numbers compared with a value: lengths and limits, not constants', () => {
  const facts = factsOf(`
    function check(password, age) {
      if (password.length < 8) return 'short';
      if (age >= 18 && age <= -1) adult();
      if (3 > 2) never();
    }`);
  assert.deepEqual(facts.numbers, [8, 18, -1]);
});

test('targets: what a container\'s click listener tests the clicked element against (event delegation)', () => {
  const facts = factsOf(`
    container.addEventListener('click', (e) => {
      if (e.target.classList.contains('seat') && !e.target.classList.contains('occupied')) pick(e.target);
      const card = e.target.closest('.card[data-id]');
      if (e.target.matches('li .delete')) remove(e.target);
    });
    document.body.classList.contains(name);          // (not a literal: nothing to offer)
    'a b'.split(' ').includes(x); list.contains(node);   // (a node's contains, not a class)
    el.classList.contains('not a class');`);
  assert.deepEqual(facts.targets, ['.seat', '.occupied', '.card[data-id]', 'li .delete']);
});
