// Mixtape: a pretend music player (no audio files) with a sortable playlist.
let songs = [
  { id: 1, title: 'Midnight Drive', artist: 'Neon Coast', length: 214, art: '🌃' },
  { id: 2, title: 'Paper Planes', artist: 'The Folds', length: 187, art: '✈️' },
  { id: 3, title: 'Ocean Eyes', artist: 'Blue Harbor', length: 242, art: '🌊' },
  { id: 4, title: 'Golden Hour', artist: 'Sunset Club', length: 199, art: '🌅' },
  { id: 5, title: 'Static', artist: 'Low Signal', length: 176, art: '📻' }
];
let nextId = 6;
let currentIndex = -1;
let playing = false;
let position = 0; // seconds into the current song
let ticker = null;
let shuffle = false;
let repeat = 'off'; // off | all | one
let volume = 0.7;
let sortAsc = true;

const playlistEl = document.getElementById('playlist');
const playBtn = document.getElementById('playBtn');

function fmt(seconds) {
  const m = Math.floor(seconds / 60);
  const s = Math.floor(seconds % 60);
  return `${m}:${String(s).padStart(2, '0')}`;
}

function parseLength(text) {
  const match = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
  if (!match || Number(match[2]) > 59) return null;
  return Number(match[1]) * 60 + Number(match[2]);
}

function visibleSongs() {
  const term = document.getElementById('search').value.trim().toLowerCase();
  return songs.filter(s => !term || s.title.toLowerCase().includes(term) || s.artist.toLowerCase().includes(term));
}

function renderPlaylist() {
  playlistEl.innerHTML = '';
  visibleSongs().forEach(song => {
    const li = document.createElement('li');
    li.className = 'song' + (songs[currentIndex] && songs[currentIndex].id === song.id ? ' current' : '');
    li.dataset.id = song.id;
    li.innerHTML = `<span class="handle" aria-label="Drag to reorder">⠿</span>
      <span><div>${song.title}</div><div class="artist">${song.artist}</div></span>
      <span>${fmt(song.length)}</span>
      <button class="remove" aria-label="Remove ${song.title}">✕</button>`;
    li.addEventListener('dblclick', () => playSong(songs.findIndex(s => s.id === song.id)));
    li.querySelector('.remove').addEventListener('click', () => removeSong(song.id));
    li.querySelector('.handle').addEventListener('pointerdown', (e) => startDrag(e, li));
    playlistEl.appendChild(li);
  });
}

function renderNowPlaying() {
  const song = songs[currentIndex];
  document.getElementById('trackTitle').textContent = song ? song.title : 'Nothing playing';
  document.getElementById('trackArtist').textContent = song ? song.artist : 'Pick a song below';
  document.getElementById('art').textContent = song ? song.art : '🎵';
  document.getElementById('art').classList.toggle('spinning', playing);
  document.getElementById('duration').textContent = song ? fmt(song.length) : '0:00';
  playBtn.textContent = playing ? '⏸' : '▶';
  playBtn.title = playing ? 'Pause' : 'Play';
  renderProgress();
}

function renderProgress() {
  const song = songs[currentIndex];
  const pct = song ? (position / song.length) * 100 : 0;
  document.getElementById('progressFill').style.width = pct + '%';
  document.getElementById('progress').setAttribute('aria-valuenow', Math.round(pct));
  document.getElementById('elapsed').textContent = fmt(position);
}

function playSong(index) {
  if (index < 0 || index >= songs.length) return;
  currentIndex = index;
  position = 0;
  play();
  renderPlaylist();
}

function play() {
  if (currentIndex === -1) currentIndex = 0;
  playing = true;
  clearInterval(ticker);
  // 1 real second = 10 song seconds, so a song finishes in ~20 s
  ticker = setInterval(() => {
    position += 10;
    if (position >= songs[currentIndex].length) songEnded();
    renderProgress();
  }, 1000);
  renderNowPlaying();
}

function pause() {
  playing = false;
  clearInterval(ticker);
  renderNowPlaying();
}

function songEnded() {
  if (repeat === 'one') {
    position = 0;
    return;
  }
  next(true);
}

function next(auto) {
  if (songs.length === 0) return;
  if (shuffle) {
    let pick = currentIndex;
    while (songs.length > 1 && pick === currentIndex) pick = Math.floor(Math.random() * songs.length);
    playSong(pick);
  } else if (currentIndex + 1 < songs.length) {
    playSong(currentIndex + 1);
  } else if (repeat === 'all' || !auto) {
    playSong(0);
  } else {
    pause();
    position = 0;
    renderProgress();
  }
}

function prev() {
  if (position > 30) {
    position = 0;
    renderProgress();
  } else {
    playSong(Math.max(0, currentIndex - 1));
  }
}

function removeSong(id) {
  const index = songs.findIndex(s => s.id === id);
  const wasCurrent = index === currentIndex;
  songs.splice(index, 1);
  if (index < currentIndex) currentIndex--;
  if (wasCurrent) {
    pause();
    currentIndex = songs.length ? Math.min(index, songs.length - 1) : -1;
    position = 0;
  }
  renderPlaylist();
  renderNowPlaying();
}

// ----- Pointer-based drag to reorder -----
function startDrag(event, li) {
  event.preventDefault();
  const id = Number(li.dataset.id);
  li.classList.add('dragging');
  li.setPointerCapture && li.setPointerCapture(event.pointerId);
  const onMove = (e) => {
    const over = document.elementFromPoint(e.clientX, e.clientY);
    const target = over && over.closest('.song');
    if (!target || target === li) return;
    const rect = target.getBoundingClientRect();
    const after = e.clientY > rect.top + rect.height / 2;
    playlistEl.insertBefore(li, after ? target.nextSibling : target);
  };
  const onUp = () => {
    li.classList.remove('dragging');
    document.removeEventListener('pointermove', onMove);
    document.removeEventListener('pointerup', onUp);
    applyDomOrder(id);
  };
  document.addEventListener('pointermove', onMove);
  document.addEventListener('pointerup', onUp);
}

function applyDomOrder(movedId) {
  const currentId = songs[currentIndex] ? songs[currentIndex].id : null;
  const order = [...playlistEl.children].map(li => Number(li.dataset.id));
  const hidden = songs.filter(s => !order.includes(s.id));
  songs = order.map(id => songs.find(s => s.id === id)).concat(hidden);
  currentIndex = songs.findIndex(s => s.id === currentId);
  console.log('moved song', movedId);
  renderPlaylist();
}

// ----- Volume knob (pointer drag) -----
function setVolume(value) {
  volume = Math.min(1, Math.max(0, value));
  document.getElementById('volumeKnob').style.left = volume * 100 + '%';
  document.getElementById('volumeLabel').textContent = Math.round(volume * 100) + '%';
}

function volumeFromPointer(e) {
  const rect = document.getElementById('volumeTrack').getBoundingClientRect();
  setVolume((e.clientX - rect.left) / rect.width);
}

document.getElementById('volumeTrack').addEventListener('pointerdown', (e) => {
  volumeFromPointer(e);
  const move = (ev) => volumeFromPointer(ev);
  const up = () => {
    document.removeEventListener('pointermove', move);
    document.removeEventListener('pointerup', up);
  };
  document.addEventListener('pointermove', move);
  document.addEventListener('pointerup', up);
});

// ----- Seek -----
const progress = document.getElementById('progress');
progress.addEventListener('click', (e) => {
  const song = songs[currentIndex];
  if (!song) return;
  const rect = progress.getBoundingClientRect();
  position = Math.floor(((e.clientX - rect.left) / rect.width) * song.length);
  renderProgress();
});
progress.addEventListener('keydown', (e) => {
  const song = songs[currentIndex];
  if (!song) return;
  if (e.key === 'ArrowRight') position = Math.min(song.length - 1, position + 10);
  if (e.key === 'ArrowLeft') position = Math.max(0, position - 10);
  renderProgress();
});

// ----- Buttons -----
playBtn.addEventListener('click', () => (playing ? pause() : play()));
document.getElementById('nextBtn').addEventListener('click', () => next(false));
document.getElementById('prevBtn').addEventListener('click', prev);
document.getElementById('shuffleBtn').addEventListener('click', (e) => {
  shuffle = !shuffle;
  e.currentTarget.setAttribute('aria-pressed', String(shuffle));
});
document.getElementById('repeatBtn').addEventListener('click', (e) => {
  repeat = { off: 'all', all: 'one', one: 'off' }[repeat];
  e.currentTarget.setAttribute('aria-pressed', String(repeat !== 'off'));
  e.currentTarget.title = 'Repeat: ' + repeat;
  e.currentTarget.textContent = repeat === 'one' ? '🔂' : '🔁';
});
document.getElementById('sortBtn').addEventListener('click', (e) => {
  const currentId = songs[currentIndex] ? songs[currentIndex].id : null;
  songs.sort((a, b) => (sortAsc ? 1 : -1) * a.title.localeCompare(b.title));
  sortAsc = !sortAsc;
  e.currentTarget.textContent = sortAsc ? 'Sort by title' : 'Sort Z–A';
  currentIndex = songs.findIndex(s => s.id === currentId);
  renderPlaylist();
});
document.getElementById('search').addEventListener('input', renderPlaylist);
document.getElementById('addForm').addEventListener('submit', (e) => {
  e.preventDefault();
  const title = document.getElementById('newTitle').value.trim();
  const artist = document.getElementById('newArtist').value.trim() || 'Unknown artist';
  const lengthText = document.getElementById('newLength').value.trim() || '3:00';
  const length = parseLength(lengthText);
  const error = document.getElementById('addError');
  if (!title) { error.textContent = 'A song needs a title.'; return; }
  if (length === null) { error.textContent = 'Length must look like 3:45.'; return; }
  error.textContent = '';
  songs.push({ id: nextId++, title, artist, length, art: '🎶' });
  e.target.reset();
  renderPlaylist();
});
document.addEventListener('keydown', (e) => {
  if (e.target.tagName === 'INPUT') return;
  if (e.code === 'Space') { e.preventDefault(); playing ? pause() : play(); }
  if (e.key === 'n') next(false);
  if (e.key === 'b') prev();
});

setVolume(volume);
renderPlaylist();
renderNowPlaying();
