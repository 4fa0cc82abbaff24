// The objects whose event listeners kits/inspecting.py reads through the DevTools
// protocol, in its order: per selector the first element it matches and that element's
// form (null when there is none), then window, document and body. Evaluated in the
// page's world for object handles (not by value); it reads only.
export default function listened(selectors) {
  const out = [];
  for (const s of selectors) {
    let el = null;
    try { el = document.querySelector(s); } catch { el = null; }
    out.push(el, el && el.form ? el.form : null);
  }
  out.push(window, document, document.body);
  return out;
}
