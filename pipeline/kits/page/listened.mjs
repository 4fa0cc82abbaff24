// The objects whose event listeners kits/inspecting.py reads through the DevTools
// protocol, in its order: per selector the first element it matches (null when none),
// then each distinct form of those elements once, then window, document and body, and
// last, as text, each selector's index among those forms (-1: no form). Evaluated in the
// page's world for object handles (not by value); it reads only.
export default function listened(selectors) {
  const elements = [], forms = [], formOf = [];
  for (const s of selectors) {
    let el = null;
    try { el = document.querySelector(s); } catch { el = null; }
    elements.push(el);
    const form = el && el.form ? el.form : null;
    let at = form ? forms.indexOf(form) : -1;
    if (form && at < 0) at = forms.push(form) - 1;
    formOf.push(at);
  }
  return [...elements, ...forms, window, document, document.body, JSON.stringify(formOf)];
}
