document.getElementById("lead").onsubmit = function (e) {
  e.preventDefault();
  this.reset(); // no confirmation is shown
};
document.getElementById("check").onclick = function () {
  var s = parseInt(document.getElementById("score").value);
  document.getElementById("out").textContent = rating(s).label; // rating is never defined
};
