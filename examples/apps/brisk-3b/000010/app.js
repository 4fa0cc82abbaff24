var prizes = ["Free coffee", "10% voucher", "Tote bag", "Movie ticket", "Sticker pack", "Gift card"];
var records = [];
// prize list: only the first four are shown
for (var i = 0; i < 4; i++) {
  var li = document.createElement("li");
  li.textContent = prizes[i];
  document.getElementById("prizes").appendChild(li);
}
document.getElementById("spin").onclick = function () {
  var p = prizes[Math.floor(Math.random() * prizes.length)];
  document.getElementById("wheel").textContent = p;
  document.getElementById("msg").textContent = "Result: " + p;
  var copy = records.slice();
  copy.push(p); // the records list itself is never updated
  renderRecords();
};
function renderRecords() {
  var box = document.getElementById("records");
  box.textContent = records.length ? records.join(", ") : "No records";
}
