// La Trattoria — interactive bits: menus, tabs, booking modal, lightbox, FAQ.
const MENU = {
  starters: [
    { name: 'Bruschetta al pomodoro', desc: 'Grilled bread, tomatoes, basil', price: 7, veg: true },
    { name: 'Carpaccio di manzo', desc: 'Beef, rocket, parmesan', price: 12, veg: false },
    { name: 'Burrata', desc: 'With roasted peppers', price: 11, veg: true }
  ],
  mains: [
    { name: 'Tagliatelle al ragù', desc: 'Slow-cooked Bolognese ragù', price: 16, veg: false },
    { name: 'Risotto ai funghi', desc: 'Porcini and thyme', price: 17, veg: true },
    { name: 'Saltimbocca alla romana', desc: 'Veal, sage, prosciutto', price: 22, veg: false },
    { name: 'Melanzane alla parmigiana', desc: 'Baked aubergine layers', price: 15, veg: true }
  ],
  desserts: [
    { name: 'Tiramisù', desc: 'Nonna\'s recipe', price: 7, veg: true },
    { name: 'Panna cotta', desc: 'Berry coulis', price: 6, veg: true }
  ]
};
const PHOTOS = [
  { emoji: '🍝', caption: 'Fresh tagliatelle, rolled every morning', color: '#e9c46a' },
  { emoji: '🍕', caption: 'Wood-fired pizza on Fridays', color: '#f4a261' },
  { emoji: '🍷', caption: 'Wines from Emilia-Romagna', color: '#e76f51' },
  { emoji: '🥗', caption: 'Greens from our garden', color: '#2a9d8f' },
  { emoji: '🍰', caption: 'Desserts made in house', color: '#264653' }
];

let activeTab = 'starters';
let lightboxIndex = 0;
let countersDone = false;

// ----- Dropdown menus (hover with a small close delay) -----
document.querySelectorAll('.has-dropdown').forEach(item => {
  let closeTimer;
  item.addEventListener('mouseenter', () => {
    clearTimeout(closeTimer);
    document.querySelectorAll('.has-dropdown.open').forEach(o => { if (o !== item) o.classList.remove('open'); });
    item.classList.add('open');
  });
  item.addEventListener('mouseleave', () => {
    closeTimer = setTimeout(() => item.classList.remove('open'), 250);
  });
});
document.querySelectorAll('.dropdown a[data-tab]').forEach(link => {
  link.addEventListener('click', () => selectTab(link.dataset.tab));
});

// ----- Menu tabs -----
function renderMenu() {
  const vegOnly = document.getElementById('vegOnly').checked;
  const dishes = MENU[activeTab].filter(d => !vegOnly || d.veg);
  document.getElementById('menuList').innerHTML = dishes.length
    ? dishes.map(d => `<div class="dish"><div>${d.name}${d.veg ? ' 🌱' : ''}<small>${d.desc}</small></div><strong>€${d.price}</strong></div>`).join('')
    : '<p>No vegetarian dishes in this section yet.</p>';
}

function selectTab(name) {
  activeTab = name;
  document.querySelectorAll('.tab').forEach(t => {
    const on = t.dataset.tab === name;
    t.classList.toggle('active', on);
    t.setAttribute('aria-selected', String(on));
  });
  renderMenu();
}

document.querySelectorAll('.tab').forEach(tab => tab.addEventListener('click', () => selectTab(tab.dataset.tab)));
document.getElementById('vegOnly').addEventListener('change', renderMenu);

// ----- Sticky header, back-to-top and animated counters on scroll -----
function onScroll() {
  const y = window.scrollY;
  document.getElementById('siteHeader').classList.toggle('scrolled', y > 40);
  document.getElementById('toTop').classList.toggle('hidden', y < 400);
  const about = document.getElementById('about').getBoundingClientRect();
  if (!countersDone && about.top < window.innerHeight - 100) {
    countersDone = true;
    animateCounters();
  }
}

function animateCounters() {
  document.querySelectorAll('.counter').forEach(el => {
    const target = Number(el.dataset.target);
    const start = performance.now();
    const step = (now) => {
      const t = Math.min(1, (now - start) / 1200);
      el.textContent = Math.round(target * (1 - Math.pow(1 - t, 3)));
      if (t < 1) requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  });
}

window.addEventListener('scroll', onScroll, { passive: true });
document.getElementById('toTop').addEventListener('click', () => window.scrollTo({ top: 0, behavior: 'smooth' }));

// ----- Booking modal -----
const modal = document.getElementById('reserveModal');
const reserveForm = document.getElementById('reserveForm');

function openModal() {
  modal.classList.remove('hidden');
  reserveForm.classList.remove('hidden');
  document.getElementById('reserveDone').classList.add('hidden');
  document.getElementById('reserveError').textContent = '';
  reserveForm.elements.name.focus();
}

function closeModal() {
  modal.classList.add('hidden');
}

function validateBooking(f) {
  if (!f.name.value.trim()) return 'Please tell us your name.';
  if (!/^[+\d][\d\s-]{6,}$/.test(f.phone.value.trim())) return 'Please enter a phone number we can call.';
  if (!f.date.value) return 'Pick a date.';
  const chosen = new Date(f.date.value + 'T12:00');
  const today = new Date(); today.setHours(0, 0, 0, 0);
  if (chosen < today) return 'That date is in the past.';
  if (chosen.getDay() === 1) return 'Sorry, we are closed on Mondays.';
  if (!f.time.value) return 'Pick a time.';
  const guests = Number(f.guests.value);
  if (!(guests >= 1 && guests <= 12)) return 'We take bookings for 1 to 12 guests; call us for larger groups.';
  return null;
}

reserveForm.addEventListener('submit', (e) => {
  e.preventDefault();
  const error = validateBooking(reserveForm.elements);
  document.getElementById('reserveError').textContent = error || '';
  if (error) return;
  const f = reserveForm.elements;
  document.getElementById('reserveSummary').textContent =
    `Grazie, ${f.name.value.trim()}! A table for ${f.guests.value} on ${f.date.value} at ${f.time.value} is waiting for you.`;
  reserveForm.classList.add('hidden');
  document.getElementById('reserveDone').classList.remove('hidden');
  reserveForm.reset();
});

document.getElementById('reserveBtn').addEventListener('click', openModal);
document.getElementById('heroReserve').addEventListener('click', openModal);
document.getElementById('closeModal').addEventListener('click', closeModal);
document.getElementById('doneClose').addEventListener('click', closeModal);
modal.addEventListener('click', (e) => { if (e.target === modal) closeModal(); });

// ----- Lightbox -----
const lightbox = document.getElementById('lightbox');

function showPhoto(index) {
  lightboxIndex = (index + PHOTOS.length) % PHOTOS.length;
  const photo = PHOTOS[lightboxIndex];
  const img = document.getElementById('lbImage');
  img.textContent = photo.emoji;
  img.style.background = photo.color;
  document.getElementById('lbCaption').textContent = `${lightboxIndex + 1} / ${PHOTOS.length} — ${photo.caption}`;
}

function openLightbox(index) {
  showPhoto(index);
  lightbox.classList.remove('hidden');
}

function closeLightbox() {
  lightbox.classList.add('hidden');
}

document.querySelectorAll('.thumb').forEach(t => t.addEventListener('click', () => openLightbox(Number(t.dataset.index))));
document.getElementById('lbPrev').addEventListener('click', () => showPhoto(lightboxIndex - 1));
document.getElementById('lbNext').addEventListener('click', () => showPhoto(lightboxIndex + 1));
document.getElementById('lbClose').addEventListener('click', closeLightbox);

document.addEventListener('keydown', (e) => {
  if (!lightbox.classList.contains('hidden')) {
    if (e.key === 'ArrowLeft') showPhoto(lightboxIndex - 1);
    else if (e.key === 'ArrowRight') showPhoto(lightboxIndex + 1);
    else if (e.key === 'Escape') closeLightbox();
  } else if (e.key === 'Escape' && !modal.classList.contains('hidden')) {
    closeModal();
  }
});

// ----- FAQ accordion (one open at a time) -----
document.querySelectorAll('.acc-head').forEach(head => {
  head.addEventListener('click', () => {
    const item = head.parentElement;
    const opening = !item.classList.contains('open');
    document.querySelectorAll('.acc-item').forEach(i => {
      i.classList.remove('open');
      i.querySelector('.acc-head').setAttribute('aria-expanded', 'false');
    });
    if (opening) {
      item.classList.add('open');
      head.setAttribute('aria-expanded', 'true');
    }
  });
});

// ----- Newsletter -----
document.getElementById('newsletter').addEventListener('submit', (e) => {
  e.preventDefault();
  const email = document.getElementById('nlEmail').value.trim();
  const message = document.getElementById('nlMessage');
  if (!/^\S+@\S+\.\S+$/.test(email)) {
    message.textContent = 'That email does not look right.';
    return;
  }
  message.textContent = 'Thanks! Check your inbox.';
  e.target.reset();
});

// ----- Open / closed right now -----
function updateOpenStatus() {
  const now = new Date();
  const open = now.getDay() !== 1 && now.getHours() >= 12 && now.getHours() < 23;
  document.getElementById('openStatus').textContent = open ? '🟢 Open now' : '🔴 Closed now';
}

updateOpenStatus();
setInterval(updateOpenStatus, 60000);
selectTab('starters');
