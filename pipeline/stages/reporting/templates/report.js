// Report behaviour: sortable tables, a filter box, a screenshot lightbox. No data
// from the apps is ever put into this script; it only reads the page's own markup.
(function () {
  function key(cell) {
    var v = cell.getAttribute('data-v');
    if (v === null) v = cell.textContent.trim();
    var n = parseFloat(v);
    return v !== '' && !isNaN(n) && isFinite(v) ? n : v.toLowerCase();
  }
  document.querySelectorAll('table.sortable').forEach(function (table) {
    var heads = table.querySelectorAll('thead th');
    heads.forEach(function (th, col) {
      if (!th.hasAttribute('data-sort')) return;
      th.addEventListener('click', function () {
        var desc = !th.classList.contains('desc');
        heads.forEach(function (h) { h.classList.remove('asc', 'desc'); });
        th.classList.add(desc ? 'desc' : 'asc');
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a.cells[col]), y = key(b.cells[col]);
          var empty = function (k) { return k === '' || k === '—'; };
          if (empty(x) !== empty(y)) return empty(x) ? 1 : -1;  // blanks last
          var c = (typeof x === typeof y) ? (x < y ? -1 : x > y ? 1 : 0)
                                           : (typeof x === 'number' ? -1 : 1);
          return desc ? -c : c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  document.querySelectorAll('input[data-filter]').forEach(function (input) {
    var table = document.getElementById(input.getAttribute('data-filter'));
    var count = document.getElementById(input.getAttribute('data-count'));
    input.addEventListener('input', function () {
      var q = input.value.trim().toLowerCase(), shown = 0;
      Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
        var hit = !q || r.textContent.toLowerCase().indexOf(q) >= 0;
        r.hidden = !hit; if (hit) shown++;
      });
      if (count) count.textContent = shown + ' shown';
    });
  });
  var box = document.getElementById('lightbox');
  if (!box) return;
  var img = box.querySelector('img'), cap = box.querySelector('figcaption');
  document.addEventListener('click', function (e) {
    var a = e.target.closest && e.target.closest('a.shot');
    if (!a || e.ctrlKey || e.metaKey || e.shiftKey) return;
    e.preventDefault();
    img.src = a.getAttribute('href');
    cap.textContent = a.getAttribute('data-caption') || '';
    box.hidden = false;
  });
  box.addEventListener('click', function () { box.hidden = true; img.removeAttribute('src'); });
  document.addEventListener('keydown', function (e) { if (e.key === 'Escape') box.click(); });
})();
