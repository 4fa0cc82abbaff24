// ClearPath: the lead form (validated, recorded in localStorage) and the score inquiry.
const BANDS = [
  [300, 579, "Poor", "Start by disputing errors and bringing every account current; we can help with both."],
  [580, 669, "Fair", "Lowering your card balances below 30% of their limits is usually the fastest gain."],
  [670, 739, "Good", "Keep payments on time; a review for outdated negative items may still add points."],
  [740, 799, "Very good", "You qualify for most offers; we can check your reports for any remaining errors."],
  [800, 850, "Exceptional", "Your score is excellent: no repair needed, just keep your habits."],
];

document.getElementById("score-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const out = document.getElementById("score-result");
  const score = Number(new FormData(event.target).get("score"));
  const band = BANDS.find(([lo, hi]) => score >= lo && score <= hi);
  out.textContent = band
    ? `A score of ${score} is ${band[2]}. Next step: ${band[3]}`
    : "Please enter a score between 300 and 850.";
});

document.getElementById("lead-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const form = event.target;
  const data = Object.fromEntries(new FormData(form));
  const error = document.getElementById("lead-error");
  const problems = [];
  if ((data.name || "").trim().length < 2) problems.push("your name");
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(data.email || "")) problems.push("a valid email");
  if (!data.status) problems.push("your credit status");
  if (problems.length) {
    error.textContent = `Please enter ${problems.join(", ")}.`;
    return;
  }
  error.textContent = "";
  const leads = JSON.parse(localStorage.getItem("clearpath-leads") || "[]");
  leads.push({ ...data, at: new Date().toISOString() });
  localStorage.setItem("clearpath-leads", JSON.stringify(leads));
  form.hidden = true;
  const thanks = document.getElementById("lead-thanks");
  thanks.textContent = `Thank you, ${data.name.trim()} — we recorded your details and will email ${data.email} within one business day.`;
  thanks.hidden = false;
});
