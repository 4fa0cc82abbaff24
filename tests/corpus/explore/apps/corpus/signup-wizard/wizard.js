// FitTrack sign-up wizard: four steps, validated one at a time.
const form = document.getElementById('signup');
const steps = [...document.querySelectorAll('.step')];
const progressItems = [...document.querySelectorAll('#progress li')];
const backBtn = document.getElementById('backBtn');
const nextBtn = document.getElementById('nextBtn');
const submitBtn = document.getElementById('submitBtn');
let currentStep = 0;

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/;

function setError(name, message) {
  const slot = form.querySelector(`.error[data-for="${name}"]`);
  if (slot) slot.textContent = message || '';
  const field = form.elements[name];
  if (field && field.classList) field.classList.toggle('invalid', Boolean(message));
}

function clearErrors(stepIndex) {
  steps[stepIndex].querySelectorAll('.error').forEach(e => { e.textContent = ''; });
  steps[stepIndex].querySelectorAll('.invalid').forEach(e => e.classList.remove('invalid'));
}

function passwordScore(pw) {
  let score = 0;
  if (pw.length >= 8) score++;
  if (pw.length >= 12) score++;
  if (/[A-Z]/.test(pw) && /[a-z]/.test(pw)) score++;
  if (/\d/.test(pw)) score++;
  if (/[^A-Za-z0-9]/.test(pw)) score++;
  return score;
}

function updateStrength() {
  const pw = form.elements.password.value;
  const score = passwordScore(pw);
  const bar = document.getElementById('strengthBar');
  const label = document.getElementById('strengthLabel');
  const levels = [
    { text: 'Too weak', color: '#ef4444' },
    { text: 'Weak', color: '#f97316' },
    { text: 'Fair', color: '#eab308' },
    { text: 'Good', color: '#84cc16' },
    { text: 'Strong', color: '#22c55e' },
    { text: 'Very strong', color: '#15803d' }
  ];
  const level = levels[score];
  bar.style.width = pw ? ((score + 1) / levels.length) * 100 + '%' : '0';
  bar.style.background = level.color;
  label.textContent = pw ? level.text : 'Password strength';
}

function ageFrom(dateString) {
  const birth = new Date(dateString);
  const now = new Date();
  let age = now.getFullYear() - birth.getFullYear();
  const m = now.getMonth() - birth.getMonth();
  if (m < 0 || (m === 0 && now.getDate() < birth.getDate())) age--;
  return age;
}

function validateAccount() {
  const { email, password, confirm } = form.elements;
  let ok = true;
  if (!email.value.trim()) { setError('email', 'Email is required.'); ok = false; }
  else if (!EMAIL_RE.test(email.value.trim())) { setError('email', 'Please enter a valid email address.'); ok = false; }
  if (password.value.length < 8) { setError('password', 'Use at least 8 characters.'); ok = false; }
  else if (passwordScore(password.value) < 3) { setError('password', 'Mix upper and lower case, numbers or symbols.'); ok = false; }
  if (confirm.value !== password.value || !confirm.value) { setError('confirm', 'Passwords do not match.'); ok = false; }
  return ok;
}

function validateProfile() {
  const { fullName, birthdate, country, height } = form.elements;
  let ok = true;
  if (fullName.value.trim().split(/\s+/).length < 2) { setError('fullName', 'Please enter your first and last name.'); ok = false; }
  if (!birthdate.value) { setError('birthdate', 'Date of birth is required.'); ok = false; }
  else {
    const age = ageFrom(birthdate.value);
    if (age < 13) { setError('birthdate', 'You must be at least 13 years old.'); ok = false; }
    else if (age > 120) { setError('birthdate', 'Please check the year.'); ok = false; }
  }
  if (!country.value) { setError('country', 'Please choose your country.'); ok = false; }
  if (height.value) {
    const h = Number(height.value);
    if (h < 100 || h > 250) { setError('height', 'Height must be between 100 and 250 cm.'); ok = false; }
  }
  return ok;
}

function validateGoals() {
  let ok = true;
  if (!form.querySelector('input[name="goal"]:checked')) { setError('goal', 'Pick a goal.'); ok = false; }
  if (!form.elements.terms.checked) { setError('terms', 'You need to accept the terms.'); ok = false; }
  return ok;
}

const validators = [validateAccount, validateProfile, validateGoals, () => true];

function showStep(index) {
  steps.forEach((s, i) => s.classList.toggle('active', i === index));
  progressItems.forEach((li, i) => {
    li.classList.toggle('active', i === index);
    li.classList.toggle('done', i < index);
  });
  backBtn.disabled = index === 0;
  nextBtn.classList.toggle('hidden', index === steps.length - 1);
  submitBtn.classList.toggle('hidden', index !== steps.length - 1);
  if (index === steps.length - 1) renderSummary();
  currentStep = index;
  const first = steps[index].querySelector('input, select');
  if (first) first.focus();
}

function goNext() {
  clearErrors(currentStep);
  if (!validators[currentStep]()) return;
  showStep(Math.min(currentStep + 1, steps.length - 1));
}

function goBack() {
  showStep(Math.max(currentStep - 1, 0));
}

function collect() {
  const data = Object.fromEntries(new FormData(form).entries());
  data.activities = [...form.querySelectorAll('input[name="activities"]:checked')].map(c => c.value);
  return data;
}

function renderSummary() {
  const d = collect();
  const countryName = form.elements.country.selectedOptions[0]?.textContent || '';
  const rows = [
    ['Email', d.email],
    ['Name', d.fullName],
    ['Born', d.birthdate],
    ['Country', countryName + (d.state ? ` (${d.state})` : '')],
    ['Height', d.height ? d.height + ' cm' : '—'],
    ['Goal', { lose: 'Lose weight', muscle: 'Build muscle', fit: 'Stay fit' }[d.goal] || '—'],
    ['Target', d.targetWeight ? d.targetWeight + ' kg' : '—'],
    ['Activities', d.activities.length ? d.activities.join(', ') : 'none yet'],
    ['Workouts', d.days + ' per week']
  ];
  document.getElementById('summary').innerHTML = rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('');
}

function planFor(data) {
  const days = Number(data.days);
  if (data.goal === 'lose') return `Your plan: ${days} cardio sessions a week with a gentle calorie deficit.`;
  if (data.goal === 'muscle') return `Your plan: ${Math.max(days - 1, 1)} strength days and 1 recovery day a week.`;
  return `Your plan: ${days} mixed workouts a week to keep you moving.`;
}

form.addEventListener('submit', (e) => {
  e.preventDefault();
  for (let i = 0; i < validators.length; i++) {
    if (!validators[i]()) { showStep(i); return; }
  }
  const data = collect();
  localStorage.setItem('fittrackAccount', JSON.stringify({ ...data, password: undefined, confirm: undefined }));
  form.classList.add('hidden');
  document.getElementById('progress').classList.add('hidden');
  document.getElementById('welcomeName').textContent = data.fullName.split(' ')[0];
  document.getElementById('welcomeEmail').textContent = data.email;
  document.getElementById('planText').textContent = planFor(data);
  document.getElementById('done').classList.remove('hidden');
});

nextBtn.addEventListener('click', goNext);
backBtn.addEventListener('click', goBack);
document.getElementById('editAccount').addEventListener('click', () => showStep(0));
document.getElementById('togglePw').addEventListener('click', (e) => {
  const pw = form.elements.password;
  const showing = pw.type === 'text';
  pw.type = showing ? 'password' : 'text';
  e.currentTarget.setAttribute('aria-label', showing ? 'Show password' : 'Hide password');
});
form.elements.password.addEventListener('input', updateStrength);
form.elements.country.addEventListener('change', () => {
  document.getElementById('stateRow').classList.toggle('hidden', form.elements.country.value !== 'us');
});
form.querySelectorAll('input[name="goal"]').forEach(r => r.addEventListener('change', () => {
  document.getElementById('targetRow').classList.toggle('hidden', r.value !== 'lose' || !r.checked);
}));
form.elements.days.addEventListener('input', () => {
  document.getElementById('daysOut').textContent = form.elements.days.value;
});
document.getElementById('startOver').addEventListener('click', () => {
  form.reset();
  updateStrength();
  form.classList.remove('hidden');
  document.getElementById('progress').classList.remove('hidden');
  document.getElementById('done').classList.add('hidden');
  showStep(0);
});
// Enter in a text field moves to the next step instead of submitting early
form.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && e.target.tagName === 'INPUT' && currentStep < steps.length - 1) {
    e.preventDefault();
    goNext();
  }
});

showStep(0);
