// Lucky Wheel: an SVG wheel of eight prizes; each spin lands on one, shows it and
// records it (date and prize) in the winning records, kept in localStorage.
const PRIZES = [
  { name: "Free coffee", color: "#8b0000" }, { name: "10% voucher", color: "#b22222" },
  { name: "Tote bag", color: "#a0522d" }, { name: "Try again", color: "#696969" },
  { name: "Movie ticket", color: "#8b0000" }, { name: "Sticker pack", color: "#b22222" },
  { name: "Gift card €20", color: "#a0522d" }, { name: "Try again", color: "#696969" },
];
const STORE = "lucky-wheel-records";
const wheel = document.getElementById("wheel");
const result = document.getElementById("result");
const spin = document.getElementById("spin");
let turned = 0;

function slicePath(i) {
  const step = (2 * Math.PI) / PRIZES.length;
  const a0 = i * step - Math.PI / 2, a1 = a0 + step, r = 100;
  return `M0,0 L${r * Math.cos(a0)},${r * Math.sin(a0)} A${r},${r} 0 0 1 ${r * Math.cos(a1)},${r * Math.sin(a1)} Z`;
}

function drawWheel() {
  const ns = "http://www.w3.org/2000/svg";
  PRIZES.forEach((prize, i) => {
    const path = document.createElementNS(ns, "path");
    path.setAttribute("d", slicePath(i));
    path.setAttribute("fill", prize.color);
    path.setAttribute("stroke", "#fff");
    wheel.appendChild(path);
    const angle = (i + 0.5) * (360 / PRIZES.length) - 90;
    const label = document.createElementNS(ns, "text");
    label.setAttribute("transform", `rotate(${angle}) translate(58,4)`);
    label.setAttribute("fill", "#fff");
    label.setAttribute("font-size", "9");
    label.setAttribute("text-anchor", "middle");
    label.textContent = prize.name;
    wheel.appendChild(label);
  });
}

function listPrizes() {
  const list = document.getElementById("prize-list");
  const seen = new Set();
  PRIZES.forEach((prize) => {
    if (seen.has(prize.name)) return;
    seen.add(prize.name);
    const item = document.createElement("li");
    item.innerHTML = `<span class="swatch" style="background:${prize.color}"></span>`;
    item.append(prize.name);
    list.appendChild(item);
  });
}

function records() {
  try { return JSON.parse(localStorage.getItem(STORE)) || []; } catch (e) { return []; }
}

function showRecords() {
  const rows = document.getElementById("record-rows");
  const all = records();
  rows.innerHTML = "";
  if (!all.length) {
    rows.innerHTML = '<tr class="empty"><td colspan="2">No spins yet.</td></tr>';
    return;
  }
  for (const r of all.slice().reverse()) {
    const row = document.createElement("tr");
    row.innerHTML = "<td></td><td></td>";
    row.cells[0].textContent = r.date;
    row.cells[1].textContent = r.prize;
    rows.appendChild(row);
  }
}

spin.addEventListener("click", () => {
  const index = Math.floor(Math.random() * PRIZES.length);
  const slice = 360 / PRIZES.length;
  turned += 1440 + (360 - (index + 0.5) * slice) - (turned % 360);
  wheel.style.transform = `rotate(${turned}deg)`;
  spin.disabled = true;
  result.textContent = "Spinning…";
  setTimeout(() => {
    const prize = PRIZES[index].name;
    result.textContent = prize === "Try again" ? "No prize this time — try again!" : `You won: ${prize}!`;
    const all = records();
    all.push({ date: new Date().toLocaleString("en-GB"), prize });
    localStorage.setItem(STORE, JSON.stringify(all));
    showRecords();
    spin.disabled = false;
  }, 1300);
});

document.getElementById("clear").addEventListener("click", () => {
  localStorage.removeItem(STORE);
  showRecords();
});

drawWheel();
listPrizes();
showRecords();
