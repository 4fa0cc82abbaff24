// Scientific calculator: a small tokenizer + shunting-yard evaluator (no eval()).
let expression = '';
let lastAnswer = 0;
let memoryValue = 0;
let useDegrees = true;
let justCalculated = false;
const history = [];

const exprEl = document.getElementById('expression');
const resultEl = document.getElementById('result');

function render(preview) {
  exprEl.textContent = expression.replace(/\*/g, '×').replace(/\//g, '÷');
  resultEl.classList.remove('error');
  if (preview !== undefined) resultEl.textContent = preview;
  document.getElementById('memFlag').textContent = memoryValue !== 0 ? 'M = ' + formatNumber(memoryValue) : '';
}

function showError(message) {
  resultEl.textContent = message;
  resultEl.classList.add('error');
}

function formatNumber(n) {
  if (!isFinite(n)) return n > 0 ? '∞' : '-∞';
  if (Math.abs(n) >= 1e12 || (Math.abs(n) < 1e-9 && n !== 0)) return n.toExponential(6);
  return String(parseFloat(n.toPrecision(12)));
}

function append(token) {
  if (justCalculated && /[0-9.(]/.test(token)) expression = '';
  justCalculated = false;
  if (token === '.') {
    const lastNumber = expression.split(/[^0-9.]/).pop();
    if (lastNumber.includes('.')) return;
  }
  expression += token;
  render(livePreview());
}

function appendConstant(name) {
  append(name === 'pi' ? 'π' : 'e');
}

function backspace() {
  expression = expression.endsWith('Ans') ? expression.slice(0, -3) : expression.slice(0, -1);
  render(livePreview());
}

function clearEntry() {
  expression = expression.replace(/[0-9.]+$/, '');
  render(livePreview());
}

function clearAll() {
  expression = '';
  justCalculated = false;
  render('0');
}

function toggleAngle() {
  useDegrees = !useDegrees;
  document.getElementById('angleMode').textContent = useDegrees ? 'DEG' : 'RAD';
  render(livePreview());
}

function toggleSign() {
  const match = /(-?)([0-9.]+)$/.exec(expression);
  if (!match) { expression += '-'; render(); return; }
  const start = expression.length - match[0].length;
  expression = expression.slice(0, start) + (match[1] ? '' : '-') + match[2];
  render(livePreview());
}

function percent() {
  const match = /([0-9.]+)$/.exec(expression);
  if (!match) return;
  expression = expression.slice(0, -match[1].length) + String(Number(match[1]) / 100);
  render(livePreview());
}

// ----- Evaluation -----
function tokenize(text) {
  const tokens = [];
  const re = /\s*(Ans|[0-9]*\.?[0-9]+|π|e|[-+*/^()])/y;
  let match;
  let index = 0;
  while (index < text.length) {
    re.lastIndex = index;
    match = re.exec(text);
    if (!match) throw new Error('Unexpected "' + text[index] + '"');
    tokens.push(match[1]);
    index = re.lastIndex;
  }
  return tokens;
}

const PRECEDENCE = { '+': 1, '-': 1, '*': 2, '/': 2, '^': 3, 'neg': 4 };

function toRpn(tokens) {
  const out = [];
  const ops = [];
  let prev = null;
  tokens.forEach(t => {
    if (/^[0-9.]+$/.test(t) || t === 'π' || t === 'e' || t === 'Ans') {
      out.push(t);
    } else if (t === '(') {
      ops.push(t);
    } else if (t === ')') {
      while (ops.length && ops[ops.length - 1] !== '(') out.push(ops.pop());
      if (!ops.length) throw new Error('Mismatched parentheses');
      ops.pop();
    } else {
      let op = t;
      if (t === '-' && (prev === null || (prev in PRECEDENCE) || prev === '(')) op = 'neg';
      while (ops.length && ops[ops.length - 1] !== '(' &&
        (PRECEDENCE[ops[ops.length - 1]] > PRECEDENCE[op] || (PRECEDENCE[ops[ops.length - 1]] === PRECEDENCE[op] && op !== '^' && op !== 'neg'))) {
        out.push(ops.pop());
      }
      ops.push(op);
      prev = op;
      return;
    }
    prev = t;
  });
  while (ops.length) {
    const op = ops.pop();
    if (op === '(') throw new Error('Mismatched parentheses');
    out.push(op);
  }
  return out;
}

function evaluateRpn(rpn) {
  const stack = [];
  rpn.forEach(t => {
    if (t === 'π') stack.push(Math.PI);
    else if (t === 'e') stack.push(Math.E);
    else if (t === 'Ans') stack.push(lastAnswer);
    else if (t === 'neg') stack.push(-stack.pop());
    else if (t in PRECEDENCE) {
      const b = stack.pop();
      const a = stack.pop();
      if (a === undefined || b === undefined) throw new Error('Incomplete expression');
      if (t === '+') stack.push(a + b);
      else if (t === '-') stack.push(a - b);
      else if (t === '*') stack.push(a * b);
      else if (t === '/') {
        if (b === 0) throw new Error('Cannot divide by zero');
        stack.push(a / b);
      } else stack.push(Math.pow(a, b));
    } else stack.push(Number(t));
  });
  if (stack.length !== 1 || Number.isNaN(stack[0])) throw new Error('Invalid expression');
  return stack[0];
}

function evaluate(text) {
  // implicit multiplication: 2π, 3(4), )(
  const prepared = text.replace(/(\d|π|\))(?=[(π]|Ans)/g, '$1*').replace(/\)(?=\d)/g, ')*');
  return evaluateRpn(toRpn(tokenize(prepared)));
}

function livePreview() {
  if (!expression) return '0';
  try {
    return formatNumber(evaluate(expression));
  } catch (e) {
    return resultEl.textContent;
  }
}

function calculate() {
  if (!expression) return;
  try {
    const value = evaluate(expression);
    addHistory(expression, value);
    lastAnswer = value;
    expression = formatNumber(value);
    justCalculated = true;
    render(expression);
  } catch (err) {
    showError(err.message);
  }
}

function toRadians(x) {
  return useDegrees ? (x * Math.PI) / 180 : x;
}

function factorial(n) {
  if (n < 0 || !Number.isInteger(n)) throw new Error('n! needs a whole number ≥ 0');
  if (n > 170) return Infinity;
  let r = 1;
  for (let i = 2; i <= n; i++) r *= i;
  return r;
}

function applyFn(name) {
  let value;
  try {
    value = expression ? evaluate(expression) : lastAnswer;
  } catch (err) {
    showError(err.message);
    return;
  }
  const fns = {
    sin: x => Math.sin(toRadians(x)),
    cos: x => Math.cos(toRadians(x)),
    tan: x => {
      if (useDegrees && Math.abs(x % 180) === 90) throw new Error('tan is undefined here');
      return Math.tan(toRadians(x));
    },
    sqrt: x => { if (x < 0) throw new Error('No square root of a negative number'); return Math.sqrt(x); },
    ln: x => { if (x <= 0) throw new Error('ln needs a positive number'); return Math.log(x); },
    log: x => { if (x <= 0) throw new Error('log needs a positive number'); return Math.log10(x); },
    square: x => x * x,
    inv: x => { if (x === 0) throw new Error('Cannot divide by zero'); return 1 / x; },
    fact: factorial
  };
  try {
    const result = fns[name](value);
    addHistory(`${name}(${formatNumber(value)})`, result);
    lastAnswer = result;
    expression = formatNumber(result);
    justCalculated = true;
    render(expression);
  } catch (err) {
    showError(err.message);
  }
}

function memory(action) {
  let current = 0;
  try { current = expression ? evaluate(expression) : 0; } catch (e) { current = 0; }
  if (action === 'MC') memoryValue = 0;
  else if (action === 'MR') { append(formatNumber(memoryValue)); return; }
  else if (action === 'M+') memoryValue += current;
  else if (action === 'M-') memoryValue -= current;
  render();
}

// ----- History -----
function addHistory(expr, value) {
  history.unshift({ expr, value });
  if (history.length > 20) history.pop();
  renderHistory();
}

function renderHistory() {
  const list = document.getElementById('historyList');
  list.innerHTML = '';
  history.forEach(item => {
    const li = document.createElement('li');
    li.textContent = `${item.expr} = ${formatNumber(item.value)}`;
    li.addEventListener('click', () => {
      expression = formatNumber(item.value);
      justCalculated = true;
      render(expression);
    });
    list.appendChild(li);
  });
}

function toggleHistory() {
  document.getElementById('historyPanel').classList.toggle('hidden');
}

function clearHistory() {
  history.length = 0;
  renderHistory();
}

document.addEventListener('keydown', (e) => {
  if (/^[0-9.+\-*/^()]$/.test(e.key)) append(e.key);
  else if (e.key === 'Enter' || e.key === '=') { e.preventDefault(); calculate(); }
  else if (e.key === 'Backspace') backspace();
  else if (e.key === 'Escape') clearAll();
  else if (e.key === 'p') appendConstant('pi');
  else if (e.key === '%') percent();
});

render('0');
