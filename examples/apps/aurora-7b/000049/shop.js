// Sharp Cuts: barbers, services and client notifications, with hash routing.
// WhatsApp messages are prepared as wa.me links (never opened here) and logged.
const state = { barbers: [{ name: "Marco", specialty: "fades" }], services: [{ name: "Classic cut", price: 25, minutes: 30 }], sent: [] };

function flash(text) {
  const box = document.getElementById("flash");
  box.textContent = text;
  box.hidden = false;
}

function route() {
  const view = (location.hash || "#dashboard").slice(1);
  const known = ["dashboard", "barbers", "services", "notify"].includes(view) ? view : "dashboard";
  document.querySelectorAll(".view").forEach((v) => { v.hidden = v.id !== `view-${known}`; });
  document.querySelectorAll("nav a").forEach((a) => a.classList.toggle("active", a.dataset.view === known));
}

function render() {
  const fill = (id, items, text) => {
    const list = document.getElementById(id);
    list.innerHTML = "";
    for (const item of items) {
      const li = document.createElement("li");
      li.textContent = text(item);
      list.appendChild(li);
    }
  };
  fill("barber-list", state.barbers, (b) => `${b.name}${b.specialty ? " — " + b.specialty : ""}`);
  fill("service-list", state.services, (s) => `${s.name} — €${s.price.toFixed(2)}, ${s.minutes} min`);
  fill("sent-list", state.sent, (m) => `To ${m.phone}: ${m.message}`);
  document.getElementById("count-barbers").textContent = state.barbers.length;
  document.getElementById("count-services").textContent = state.services.length;
  document.getElementById("count-sent").textContent = state.sent.length;
}

function handle(formId, read) {
  const form = document.getElementById(formId);
  const error = document.querySelector(`[data-for="${formId}"]`);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = Object.fromEntries(new FormData(form));
    const problem = read(data);
    error.textContent = problem || "";
    if (!problem) {
      form.reset();
      render();
    }
  });
}

handle("barber-form", (d) => {
  const name = (d.name || "").trim();
  if (name.length < 2) return "Please enter the barber's name.";
  state.barbers.push({ name, specialty: (d.specialty || "").trim() });
  flash(`Barber ${name} was added.`);
});
handle("service-form", (d) => {
  const name = (d.name || "").trim();
  const price = Number(d.price), minutes = Number(d.minutes);
  if (name.length < 2) return "Please name the service.";
  if (!(price > 0)) return "Please enter a price above 0.";
  if (!(minutes >= 5)) return "A service takes at least 5 minutes.";
  state.services.push({ name, price, minutes });
  flash(`Service ${name} was added.`);
});
handle("notify-form", (d) => {
  const phone = (d.phone || "").replace(/[^+\d]/g, "");
  if (phone.length < 8) return "Please enter the client's phone number with country code.";
  const message = (d.message || "").trim() || "Your appointment is confirmed.";
  state.sent.push({ phone, message, link: `https://wa.me/${phone.replace("+", "")}?text=${encodeURIComponent(message)}` });
  flash(`WhatsApp notification prepared for ${phone}.`);
});

window.addEventListener("hashchange", route);
route();
render();
