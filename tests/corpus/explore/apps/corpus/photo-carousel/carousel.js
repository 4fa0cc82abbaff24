// Wanderlust: an auto-playing carousel with swipe, a filterable gallery and a photo viewer.
const SLIDES = [
  { emoji: '🏔️', title: 'Dolomites', text: 'Five days on the Alta Via 1', color: '#4b6584' },
  { emoji: '🏝️', title: 'Lofoten', text: 'Arctic beaches under the midnight sun', color: '#20bf6b' },
  { emoji: '🌆', title: 'Tokyo', text: 'Neon nights in Shinjuku', color: '#8854d0' },
  { emoji: '🏜️', title: 'Wadi Rum', text: 'Sleeping under a million stars', color: '#fa8231' }
];
const PHOTOS = [
  { emoji: '⛰️', title: 'Sunrise at Seceda', place: 'Italy', tag: 'mountains', color: '#4b6584' },
  { emoji: '🏖️', title: 'Haukland beach', place: 'Norway', tag: 'beaches', color: '#0fb9b1' },
  { emoji: '🗼', title: 'Tokyo Tower', place: 'Japan', tag: 'cities', color: '#eb3b5a' },
  { emoji: '🌋', title: 'Mount Fuji', place: 'Japan', tag: 'mountains', color: '#a55eea' },
  { emoji: '🌊', title: 'Big waves', place: 'Portugal', tag: 'beaches', color: '#2d98da' },
  { emoji: '🏙️', title: 'Skyline', place: 'New York', tag: 'cities', color: '#778ca3' },
  { emoji: '🏕️', title: 'Camp at Tre Cime', place: 'Italy', tag: 'mountains', color: '#26de81' },
  { emoji: '🌴', title: 'Palm coast', place: 'Thailand', tag: 'beaches', color: '#20bf6b' },
  { emoji: '🌉', title: 'Golden Gate', place: 'San Francisco', tag: 'cities', color: '#fd9644' },
  { emoji: '🗻', title: 'Matterhorn', place: 'Switzerland', tag: 'mountains', color: '#4b7bec' },
  { emoji: '🐚', title: 'Shell beach', place: 'Australia', tag: 'beaches', color: '#fed330' },
  { emoji: '🕌', title: 'Old town', place: 'Istanbul', tag: 'cities', color: '#fc5c65' }
];
const AUTOPLAY_MS = 4000;
const PAGE = 8;

let index = 0;
let autoplay = true;
let autoplayTimer = null;
let progressStart = 0;
let filter = 'all';
let shown = PAGE;
let viewerPhoto = null;
const likes = {};

const track = document.getElementById('track');
const dots = document.getElementById('dots');

// ----- Carousel -----
function buildCarousel() {
  SLIDES.forEach((s, i) => {
    const slide = document.createElement('div');
    slide.className = 'slide';
    slide.style.background = s.color;
    slide.setAttribute('role', 'group');
    slide.setAttribute('aria-label', `${i + 1} of ${SLIDES.length}`);
    slide.innerHTML = `<span>${s.emoji}</span><h2>${s.title}</h2><p>${s.text}</p>`;
    track.appendChild(slide);
    const dot = document.createElement('button');
    dot.className = 'dot';
    dot.setAttribute('aria-label', 'Go to ' + s.title);
    dot.addEventListener('click', () => goTo(i, true));
    dots.appendChild(dot);
  });
}

function goTo(i, manual) {
  index = (i + SLIDES.length) % SLIDES.length;
  track.style.transform = `translateX(-${index * 100}%)`;
  [...dots.children].forEach((d, j) => d.classList.toggle('active', j === index));
  if (manual) restartAutoplay();
}

function startAutoplay() {
  stopAutoplay();
  progressStart = performance.now();
  autoplayTimer = setInterval(() => {
    goTo(index + 1, false);
    progressStart = performance.now();
  }, AUTOPLAY_MS);
  requestAnimationFrame(drawProgress);
}

function stopAutoplay() {
  clearInterval(autoplayTimer);
  autoplayTimer = null;
  document.getElementById('autoplayProgress').style.width = '0';
}

function restartAutoplay() {
  if (autoplay) startAutoplay();
}

function drawProgress(now) {
  if (!autoplayTimer) return;
  const pct = Math.min(100, ((now - progressStart) / AUTOPLAY_MS) * 100);
  document.getElementById('autoplayProgress').style.width = pct + '%';
  requestAnimationFrame(drawProgress);
}

function toggleAutoplay() {
  autoplay = !autoplay;
  const btn = document.getElementById('autoplayBtn');
  btn.setAttribute('aria-pressed', String(autoplay));
  btn.textContent = autoplay ? '⏸ Pause' : '▶ Play';
  if (autoplay) startAutoplay(); else stopAutoplay();
}

// Swipe with the mouse or a finger
const carousel = document.getElementById('carousel');
let dragStartX = null;
carousel.addEventListener('pointerdown', (e) => {
  if (e.target.closest('button')) return;
  dragStartX = e.clientX;
  stopAutoplay();
});
carousel.addEventListener('pointerup', (e) => {
  if (dragStartX === null) return;
  const dx = e.clientX - dragStartX;
  dragStartX = null;
  if (Math.abs(dx) > 50) goTo(index + (dx < 0 ? 1 : -1), true);
  else restartAutoplay();
});
carousel.addEventListener('mouseenter', () => { if (autoplay) stopAutoplay(); });
carousel.addEventListener('mouseleave', () => { if (autoplay && !autoplayTimer) startAutoplay(); });

// ----- Gallery -----
function filtered() {
  return PHOTOS.filter(p => filter === 'all' || p.tag === filter);
}

function renderGrid() {
  const grid = document.getElementById('grid');
  grid.innerHTML = '';
  const items = filtered();
  items.slice(0, shown).forEach(photo => {
    const tile = document.createElement('div');
    tile.className = 'tile';
    tile.style.background = photo.color;
    tile.tabIndex = 0;
    tile.setAttribute('role', 'button');
    tile.setAttribute('aria-label', photo.title);
    tile.innerHTML = `<span class="big">${photo.emoji}</span><span>${photo.title} · ${photo.place}${likes[photo.title] ? ' ♥' : ''}</span>`;
    tile.addEventListener('click', () => openViewer(photo));
    tile.addEventListener('keydown', (e) => { if (e.key === 'Enter') openViewer(photo); });
    grid.appendChild(tile);
  });
  document.getElementById('loadMore').classList.toggle('hidden', shown >= items.length);
}

function setFilter(name) {
  filter = name;
  shown = PAGE;
  document.querySelectorAll('.filter').forEach(b => b.classList.toggle('active', b.dataset.filter === name));
  renderGrid();
}

// ----- Viewer -----
function openViewer(photo) {
  viewerPhoto = photo;
  const el = document.getElementById('viewerPhoto');
  el.textContent = photo.emoji;
  el.style.background = photo.color;
  el.classList.remove('zoomed');
  document.getElementById('viewerTitle').textContent = photo.title;
  document.getElementById('viewerPlace').textContent = photo.place;
  updateLike();
  document.getElementById('viewer').classList.remove('hidden');
  stopAutoplay();
}

function closeViewer() {
  document.getElementById('viewer').classList.add('hidden');
  viewerPhoto = null;
  restartAutoplay();
  renderGrid();
}

function updateLike() {
  const liked = Boolean(likes[viewerPhoto.title]);
  const btn = document.getElementById('likeBtn');
  btn.textContent = liked ? '♥ Liked' : '♡ Like';
  btn.setAttribute('aria-pressed', String(liked));
  document.getElementById('likeCount').textContent = Object.keys(likes).length + ' liked';
}

function stepViewer(delta) {
  const items = filtered();
  const i = items.indexOf(viewerPhoto);
  openViewer(items[(i + delta + items.length) % items.length]);
}

document.getElementById('likeBtn').addEventListener('click', () => {
  if (likes[viewerPhoto.title]) delete likes[viewerPhoto.title]; else likes[viewerPhoto.title] = true;
  updateLike();
});
document.getElementById('zoomBtn').addEventListener('click', () => document.getElementById('viewerPhoto').classList.toggle('zoomed'));
document.getElementById('viewerClose').addEventListener('click', closeViewer);
document.getElementById('viewer').addEventListener('click', (e) => { if (e.target.id === 'viewer') closeViewer(); });
document.getElementById('prevSlide').addEventListener('click', () => goTo(index - 1, true));
document.getElementById('nextSlide').addEventListener('click', () => goTo(index + 1, true));
document.getElementById('autoplayBtn').addEventListener('click', toggleAutoplay);
document.getElementById('loadMore').addEventListener('click', () => { shown += PAGE; renderGrid(); });
document.querySelectorAll('.filter').forEach(b => b.addEventListener('click', () => setFilter(b.dataset.filter)));
document.addEventListener('keydown', (e) => {
  const open = !document.getElementById('viewer').classList.contains('hidden');
  if (open) {
    if (e.key === 'Escape') closeViewer();
    else if (e.key === 'ArrowRight') stepViewer(1);
    else if (e.key === 'ArrowLeft') stepViewer(-1);
  } else if (e.key === 'ArrowRight') goTo(index + 1, true);
  else if (e.key === 'ArrowLeft') goTo(index - 1, true);
});
document.addEventListener('visibilitychange', () => {
  if (document.hidden) stopAutoplay(); else restartAutoplay();
});

buildCarousel();
goTo(0, false);
startAutoplay();
renderGrid();
