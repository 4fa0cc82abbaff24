var polls = [
  { q: 'Favourite season?', options: ['Spring', 'Summer', 'Autumn', 'Winter'], votes: [3, 8, 5, 2] },
  { q: 'Cats or dogs?', options: ['Cats', 'Dogs', 'Both'], votes: [6, 6, 4] },
  { q: 'Best way to commute?', options: ['Bike', 'Bus', 'Car', 'Walk'], votes: [5, 3, 4, 6] }
];
var current = 0;

function showPage(name) {
  document.getElementById('home').style.display = name == 'home' ? 'block' : 'none';
  document.getElementById('vote').style.display = name == 'vote' ? 'block' : 'none';
}

function renderPolls() {
  var html = '';
  polls.forEach(function (p, i) {
    html += '<div class="poll" onclick="openPoll(' + i + ')">' + p.q + '</div>';
  });
  document.getElementById('pollList').innerHTML = html;
}

function openPoll(i) {
  current = i;
  document.getElementById('pollTitle').innerText = polls[i].q;
  var html = '';
  polls[i].options.forEach(function (o, j) {
    html += '<div><input type="radio" name="choice" value="' + j + '"> ' + o + '</div>';
  });
  document.getElementById('choices').innerHTML = html;
  document.getElementById('msg').innerText = '';
  location.hash = 'vote';
}

document.getElementById('voteBtn').onclick = function () {
  var picked = document.querySelector('input[name=choice]:checked').value;
  polls[current].votes[picked]++;
  document.getElementById('msg').innerText = 'Thanks for voting!';
};

function renderResults() {
  var p = polls[current];
  var total = p.votes.reduce(function (a, b) { return a + b; }, 0);
  var html = '';
  p.options.forEach(function (o, j) {
    html += o + '<div class="bar" style="width:' + (p.votes[j] / total * 100) + '%"></div>';
  });
  document.getElementById('bars').innerHTML = html;
}

window.onhashchange = function () {
  var page = location.hash.replace('#', '') || 'home';
  if (page == 'results') {
    renderResults();
  }
  showPage(page);
};

renderPolls();
showPage('home');
