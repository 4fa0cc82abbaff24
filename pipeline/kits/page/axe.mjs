// axe-core's run on the document, in the isolated world where kits/browser.py loaded it:
// the violations in short, or an error once `limitMs` has passed.
export default async function runAxe(limitMs) {
  const timeout = new Promise((_, reject) =>
    setTimeout(() => reject(new Error('axe-core took longer than ' + limitMs + ' ms')), limitMs));
  const result = await Promise.race([
    window.axe.run(document, {resultTypes: ['violations'], reporter: 'v2'}), timeout]);
  return {version: window.axe.version, violations: result.violations.map(v => (
    {id: v.id, impact: v.impact || null, help: v.help || '', nodes: v.nodes.length}))};
}
