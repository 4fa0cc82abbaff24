/* Star Defender — a small arcade shooter.
 * Menus, held-key movement, auto-fire, waves of enemies, a boss and game over / victory. */

const canvas = document.getElementById('canvas');
const ctx = canvas.getContext('2d');
const W = canvas.width;
const H = canvas.height;

const DIFFICULTY = {
  easy: { enemySpeed: 0.6, spawnEvery: 1400, enemyFire: 0.002 },
  normal: { enemySpeed: 1, spawnEvery: 1000, enemyFire: 0.004 },
  hard: { enemySpeed: 1.5, spawnEvery: 700, enemyFire: 0.007 }
};

const keys = {};
let settings = { difficulty: 'normal', starfield: true };
let state = 'menu'; // menu | playing | paused | over
let player, bullets, enemyBullets, enemies, powerups, particles, stars, boss;
let score = 0;
let lives = 3;
let wave = 1;
let kills = 0;
let lastSpawn = 0;
let lastShot = 0;
let tripleUntil = 0;
let invulnerableUntil = 0;
let highScore = Number(localStorage.getItem('starDefenderHigh') || 0);
let lastFrame = 0;

document.getElementById('menuHighScore').textContent = 'High score: ' + highScore;

function showScreen(id) {
  document.querySelectorAll('.screen').forEach(s => s.classList.add('hidden'));
  if (id) document.getElementById(id).classList.remove('hidden');
}

function saveSettings() {
  settings.difficulty = document.getElementById('difficulty').value;
  settings.starfield = document.getElementById('starfield').checked;
  showScreen('menuScreen');
}

function makeStars() {
  stars = [];
  for (let i = 0; i < 80; i++) {
    stars.push({ x: Math.random() * W, y: Math.random() * H, speed: 0.5 + Math.random() * 2 });
  }
}

function startGame() {
  player = { x: W / 2 - 18, y: H - 60, w: 36, h: 24, speed: 5 };
  bullets = [];
  enemyBullets = [];
  enemies = [];
  powerups = [];
  particles = [];
  boss = null;
  score = 0;
  lives = 3;
  wave = 1;
  kills = 0;
  tripleUntil = 0;
  invulnerableUntil = 0;
  makeStars();
  updateHud();
  showScreen(null);
  state = 'playing';
  lastFrame = performance.now();
  lastSpawn = lastFrame;
  requestAnimationFrame(frame);
}

function pauseGame() {
  if (state !== 'playing') return;
  state = 'paused';
  showScreen('pauseScreen');
}

function resumeGame() {
  if (state !== 'paused') return;
  state = 'playing';
  showScreen(null);
  lastFrame = performance.now();
  requestAnimationFrame(frame);
}

function quitToMenu() {
  state = 'menu';
  showScreen('menuScreen');
}

function updateHud() {
  document.getElementById('hudScore').textContent = score;
  document.getElementById('hudLives').textContent = lives;
  document.getElementById('hudWave').textContent = boss ? 'BOSS' : 'Wave ' + wave;
}

function shoot(now) {
  if (now - lastShot < 220) return;
  lastShot = now;
  const cx = player.x + player.w / 2;
  bullets.push({ x: cx - 2, y: player.y, vx: 0, vy: -8 });
  if (now < tripleUntil) {
    bullets.push({ x: cx - 2, y: player.y, vx: -2, vy: -7.5 });
    bullets.push({ x: cx - 2, y: player.y, vx: 2, vy: -7.5 });
  }
}

function spawnEnemy() {
  const d = DIFFICULTY[settings.difficulty];
  const type = Math.random() < 0.2 + wave * 0.05 ? 'zigzag' : 'basic';
  enemies.push({
    x: 20 + Math.random() * (W - 60), y: -30, w: 30, h: 22, type,
    vy: (1 + wave * 0.2) * d.enemySpeed, phase: Math.random() * Math.PI * 2,
    hp: type === 'zigzag' ? 2 : 1
  });
}

function spawnBoss() {
  boss = { x: W / 2 - 70, y: -80, w: 140, h: 60, hp: 30, maxHp: 30, dir: 1 };
  updateHud();
}

function overlaps(a, b) {
  return a.x < b.x + b.w && a.x + (a.w || 4) > b.x && a.y < b.y + b.h && a.y + (a.h || 10) > b.y;
}

function explode(x, y, color) {
  for (let i = 0; i < 14; i++) {
    particles.push({ x, y, vx: (Math.random() - 0.5) * 5, vy: (Math.random() - 0.5) * 5, life: 30, color });
  }
}

function hitPlayer(now) {
  if (now < invulnerableUntil) return;
  lives -= 1;
  invulnerableUntil = now + 1500;
  explode(player.x + player.w / 2, player.y, '#5ad1ff');
  updateHud();
  if (lives <= 0) endGame(false);
}

function enemyKilled(enemy) {
  kills += 1;
  score += enemy.type === 'zigzag' ? 25 : 10;
  explode(enemy.x + enemy.w / 2, enemy.y + enemy.h / 2, '#ff6b6b');
  if (Math.random() < 0.12) {
    powerups.push({ x: enemy.x, y: enemy.y, w: 16, h: 16 });
  }
  if (kills % 10 === 0 && !boss) {
    wave += 1;
    if (wave > 3) spawnBoss();
  }
  updateHud();
}

function update(now, dt) {
  const d = DIFFICULTY[settings.difficulty];
  // Player movement (held keys)
  if (keys.ArrowLeft || keys.a) player.x -= player.speed * dt;
  if (keys.ArrowRight || keys.d) player.x += player.speed * dt;
  player.x = Math.max(0, Math.min(W - player.w, player.x));
  if (keys[' ']) shoot(now);

  if (!boss && now - lastSpawn > d.spawnEvery / (1 + wave * 0.15)) {
    lastSpawn = now;
    spawnEnemy();
  }

  bullets.forEach(b => { b.x += b.vx * dt; b.y += b.vy * dt; });
  bullets = bullets.filter(b => b.y > -10 && b.x > -10 && b.x < W + 10);
  enemyBullets.forEach(b => { b.y += b.vy * dt; });
  enemyBullets = enemyBullets.filter(b => b.y < H + 10);

  enemies.forEach(e => {
    e.y += e.vy * dt;
    if (e.type === 'zigzag') {
      e.phase += 0.05 * dt;
      e.x += Math.sin(e.phase) * 2 * dt;
    }
    if (Math.random() < d.enemyFire * dt) {
      enemyBullets.push({ x: e.x + e.w / 2, y: e.y + e.h, vy: 4 });
    }
  });

  // Bullets vs enemies
  for (const b of bullets) {
    for (const e of enemies) {
      if (!e.dead && overlaps({ x: b.x, y: b.y, w: 4, h: 10 }, e)) {
        b.y = -100;
        e.hp -= 1;
        if (e.hp <= 0) {
          e.dead = true;
          enemyKilled(e);
        }
      }
    }
    if (boss && overlaps({ x: b.x, y: b.y, w: 4, h: 10 }, boss)) {
      b.y = -100;
      damageBoss();
    }
  }

  // Enemies reaching the bottom or touching the player
  for (const e of enemies) {
    if (e.dead) continue;
    if (e.y > H) {
      e.dead = true;
      score = Math.max(0, score - 5);
      updateHud();
    } else if (overlaps(e, player)) {
      e.dead = true;
      hitPlayer(now);
    }
  }
  enemies = enemies.filter(e => !e.dead);

  for (const b of enemyBullets) {
    if (overlaps({ x: b.x, y: b.y, w: 4, h: 10 }, player)) {
      b.y = H + 100;
      hitPlayer(now);
    }
  }

  powerups.forEach(p => { p.y += 2 * dt; });
  powerups = powerups.filter(p => {
    if (overlaps(p, player)) {
      tripleUntil = now + 8000;
      return false;
    }
    return p.y < H;
  });

  if (boss) updateBoss(dt);

  particles.forEach(p => { p.x += p.vx; p.y += p.vy; p.life -= 1; });
  particles = particles.filter(p => p.life > 0);

  if (settings.starfield) {
    stars.forEach(s => { s.y += s.speed * dt; if (s.y > H) { s.y = 0; s.x = Math.random() * W; } });
  }
}

function updateBoss(dt) {
  if (boss.y < 40) {
    boss.y += 1 * dt;
    return;
  }
  boss.x += boss.dir * 2 * dt;
  if (boss.x < 10 || boss.x + boss.w > W - 10) boss.dir *= -1;
  if (Math.random() < 0.04 * dt) {
    enemyBullets.push({ x: boss.x + boss.w / 2, y: boss.y + boss.h, vy: 5 });
  }
}

function damageBoss() {
  boss.hp -= 1;
  if (boss.hp <= 0) {
    explode(boss.x + boss.w / 2, boss.y + boss.h / 2, '#ffd166');
    score += 500;
    boss = null;
    updateHud();
    endGame(true);
  }
}

function endGame(victory) {
  state = 'over';
  if (score > highScore) {
    highScore = score;
    localStorage.setItem('starDefenderHigh', String(highScore));
    document.getElementById('menuHighScore').textContent = 'High score: ' + highScore;
  }
  document.getElementById('overTitle').textContent = victory ? 'Victory!' : 'Game Over';
  document.getElementById('overText').textContent =
    (victory ? 'The mothership is down. ' : 'Your ship was destroyed. ') + 'Final score: ' + score;
  showScreen('overScreen');
}

// ===== Rendering =====
function drawShip(x, y, w, h, color) {
  ctx.fillStyle = color;
  ctx.beginPath();
  ctx.moveTo(x + w / 2, y);
  ctx.lineTo(x + w, y + h);
  ctx.lineTo(x, y + h);
  ctx.closePath();
  ctx.fill();
}

function render(now) {
  ctx.fillStyle = '#02030a';
  ctx.fillRect(0, 0, W, H);
  ctx.fillStyle = '#ffffff88';
  stars.forEach(s => ctx.fillRect(s.x, s.y, 2, 2));

  const blink = now < invulnerableUntil && Math.floor(now / 100) % 2 === 0;
  if (!blink) drawShip(player.x, player.y, player.w, player.h, now < tripleUntil ? '#ffd166' : '#5ad1ff');

  ctx.fillStyle = '#9ef01a';
  bullets.forEach(b => ctx.fillRect(b.x, b.y, 4, 10));
  ctx.fillStyle = '#ff4d6d';
  enemyBullets.forEach(b => ctx.fillRect(b.x, b.y, 4, 10));

  enemies.forEach(e => {
    ctx.fillStyle = e.type === 'zigzag' ? '#c77dff' : '#ff6b6b';
    ctx.fillRect(e.x, e.y, e.w, e.h);
  });

  ctx.font = '16px sans-serif';
  powerups.forEach(p => ctx.fillText('⭐', p.x, p.y + 14));

  if (boss) {
    ctx.fillStyle = '#ffd166';
    ctx.fillRect(boss.x, boss.y, boss.w, boss.h);
    ctx.fillStyle = '#333';
    ctx.fillRect(boss.x, boss.y - 10, boss.w, 5);
    ctx.fillStyle = '#ef233c';
    ctx.fillRect(boss.x, boss.y - 10, boss.w * (boss.hp / boss.maxHp), 5);
  }

  particles.forEach(p => {
    ctx.globalAlpha = p.life / 30;
    ctx.fillStyle = p.color;
    ctx.fillRect(p.x, p.y, 3, 3);
  });
  ctx.globalAlpha = 1;
}

function frame(now) {
  if (state !== 'playing') return;
  const dt = Math.min(3, (now - lastFrame) / 16.67);
  lastFrame = now;
  update(now, dt);
  render(now);
  if (state === 'playing') requestAnimationFrame(frame);
}

// ===== Keyboard =====
window.addEventListener('keydown', e => {
  keys[e.key] = true;
  if (e.key === ' ' || e.key.startsWith('Arrow')) e.preventDefault();
  if (e.key === 'Escape') {
    if (state === 'playing') pauseGame();
    else if (state === 'paused') resumeGame();
  }
  if (e.key === 'Enter' && (state === 'menu' || state === 'over')) startGame();
});

window.addEventListener('keyup', e => {
  keys[e.key] = false;
});

window.addEventListener('blur', () => {
  Object.keys(keys).forEach(k => { keys[k] = false; });
  pauseGame();
});

makeStars();
ctx.fillStyle = '#02030a';
ctx.fillRect(0, 0, W, H);
