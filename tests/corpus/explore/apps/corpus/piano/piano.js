// Virtual Piano: Web Audio synth, recording and playback, metronome, a hidden party mode.
const NOTES = [
  { note: 'C', key: 'a' }, { note: 'C#', key: 'w', black: true }, { note: 'D', key: 's' },
  { note: 'D#', key: 'e', black: true }, { note: 'E', key: 'd' }, { note: 'F', key: 'f' },
  { note: 'F#', key: 't', black: true }, { note: 'G', key: 'g' }, { note: 'G#', key: 'y', black: true },
  { note: 'A', key: 'h' }, { note: 'A#', key: 'u', black: true }, { note: 'B', key: 'j' }, { note: 'C5', key: 'k' }
];
// Play "C E G C5" (a, d, g, k) to start the party.
const SECRET = ['C', 'E', 'G', 'C5'];

let audio = null;
let octave = 4;
let recording = false;
let recorded = [];
let recordStart = 0;
let metronome = null;
let lastNotes = [];
let party = false;
let showLabels = true;
const pressed = new Set();
const saved = [];

function audioContext() {
  if (!audio) audio = new (window.AudioContext || window.webkitAudioContext)();
  if (audio.state === 'suspended') audio.resume();
  return audio;
}

function frequency(noteName, oct) {
  const names = ['C', 'C#', 'D', 'D#', 'E', 'F', 'F#', 'G', 'G#', 'A', 'A#', 'B'];
  let index = names.indexOf(noteName);
  let octaveShift = 0;
  if (noteName === 'C5') { index = 0; octaveShift = 1; }
  const semitones = index - 9 + (oct + octaveShift - 4) * 12;
  return 440 * Math.pow(2, semitones / 12);
}

function playTone(freq, duration = 0.6) {
  const ctx = audioContext();
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = document.getElementById('wave').value;
  osc.frequency.value = freq;
  const volume = Number(document.getElementById('volume').value) / 100;
  gain.gain.setValueAtTime(volume * 0.4, ctx.currentTime);
  gain.gain.exponentialRampToValueAtTime(0.0001, ctx.currentTime + duration);
  osc.connect(gain).connect(ctx.destination);
  osc.start();
  osc.stop(ctx.currentTime + duration);
}

function keyElement(noteName) {
  return document.querySelector(`.key[data-note="${noteName}"]`);
}

function flash(noteName) {
  const el = keyElement(noteName);
  if (!el) return;
  el.classList.add('active');
  setTimeout(() => el.classList.remove('active'), 180);
}

function playNote(noteName, fromPlayback = false) {
  playTone(frequency(noteName, octave));
  flash(noteName);
  document.getElementById('display').textContent = noteName.replace('5', '') + (noteName === 'C5' ? octave + 1 : octave);
  if (recording && !fromPlayback) recorded.push({ note: noteName, octave, at: performance.now() - recordStart });
  if (!fromPlayback) checkSecret(noteName);
}

function checkSecret(noteName) {
  lastNotes.push(noteName);
  if (lastNotes.length > SECRET.length) lastNotes.shift();
  if (lastNotes.join(' ') === SECRET.join(' ')) {
    lastNotes = [];
    toggleParty();
  }
}

function toggleParty() {
  party = !party;
  document.body.classList.toggle('party', party);
  document.getElementById('display').textContent = party ? '🎉 PARTY MODE 🎉' : 'Party over';
  if (party) {
    [0, 150, 300, 450].forEach((delay, i) => setTimeout(() => playTone(frequency(SECRET[i], octave), 0.3), delay));
  }
}

function buildPiano() {
  const piano = document.getElementById('piano');
  let whiteIndex = 0;
  NOTES.forEach(n => {
    const el = document.createElement('div');
    el.className = 'key' + (n.black ? ' black' : '');
    el.dataset.note = n.note;
    el.setAttribute('role', 'button');
    el.setAttribute('aria-label', n.note);
    el.textContent = n.key.toUpperCase();
    if (n.black) el.style.left = (whiteIndex * 60 - 19) + 'px';
    else whiteIndex++;
    el.addEventListener('mousedown', () => playNote(n.note));
    piano.appendChild(el);
  });
}

function changeOctave(delta) {
  octave = Math.min(6, Math.max(2, octave + delta));
  document.getElementById('octave').textContent = octave;
}

// ----- Recording -----
function toggleRecording() {
  const btn = document.getElementById('recordBtn');
  if (!recording) {
    recording = true;
    recorded = [];
    recordStart = performance.now();
    btn.textContent = '⏹ Stop';
    btn.classList.add('on');
    document.getElementById('display').classList.add('recording');
  } else {
    recording = false;
    btn.textContent = '⏺ Record';
    btn.classList.remove('on');
    document.getElementById('display').classList.remove('recording');
    document.getElementById('playBtn').disabled = recorded.length === 0;
    if (recorded.length) saveRecording(recorded.slice());
  }
}

function playRecording(notes) {
  if (!notes.length) return;
  const savedOctave = octave;
  notes.forEach(n => setTimeout(() => {
    octave = n.octave;
    playNote(n.note, true);
    octave = savedOctave;
  }, n.at));
}

function saveRecording(notes) {
  saved.push({ name: 'Take ' + (saved.length + 1), notes, length: Math.round(notes[notes.length - 1].at / 100) / 10 });
  renderSongs();
}

function renderSongs() {
  const list = document.getElementById('songList');
  list.innerHTML = '';
  saved.forEach((song, i) => {
    const li = document.createElement('li');
    li.innerHTML = `${song.name} — ${song.notes.length} notes, ${song.length}s <button data-i="${i}">▶</button> <button data-del="${i}" aria-label="Delete ${song.name}">✕</button>`;
    li.querySelector('[data-i]').addEventListener('click', () => playRecording(song.notes));
    li.querySelector('[data-del]').addEventListener('click', () => { saved.splice(i, 1); renderSongs(); });
    list.appendChild(li);
  });
  if (!saved.length) list.innerHTML = '<li>None yet</li>';
}

// ----- Metronome -----
function toggleMetronome() {
  const btn = document.getElementById('metronomeBtn');
  if (metronome) {
    clearInterval(metronome);
    metronome = null;
    btn.classList.remove('on');
    return;
  }
  const bpm = Math.min(220, Math.max(40, Number(document.getElementById('bpm').value) || 100));
  let beat = 0;
  metronome = setInterval(() => {
    playTone(beat % 4 === 0 ? 1200 : 800, 0.05);
    beat++;
  }, 60000 / bpm);
  btn.classList.add('on');
}

document.addEventListener('keydown', (e) => {
  if (e.repeat || e.target.tagName === 'INPUT' || e.target.tagName === 'SELECT') return;
  const key = e.key.toLowerCase();
  if (key === 'z') { changeOctave(-1); return; }
  if (key === 'x') { changeOctave(1); return; }
  const n = NOTES.find(x => x.key === key);
  if (n && !pressed.has(key)) {
    pressed.add(key);
    playNote(n.note);
  }
});
document.addEventListener('keyup', (e) => pressed.delete(e.key.toLowerCase()));

document.getElementById('recordBtn').addEventListener('click', toggleRecording);
document.getElementById('playBtn').addEventListener('click', () => playRecording(recorded));
document.getElementById('metronomeBtn').addEventListener('click', toggleMetronome);
document.getElementById('labelsBtn').addEventListener('click', (e) => {
  showLabels = !showLabels;
  document.querySelectorAll('.key').forEach(k => { k.style.color = showLabels ? '' : 'transparent'; });
  e.currentTarget.textContent = showLabels ? 'Hide labels' : 'Show labels';
});
document.getElementById('bpm').addEventListener('change', () => {
  if (metronome) { toggleMetronome(); toggleMetronome(); }
});

buildPiano();
