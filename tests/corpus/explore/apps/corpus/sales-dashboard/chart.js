// A small canvas chart: bars, lines or stacked bars, with hit-testing for tooltips.
class Chart {
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d');
    this.padding = { top: 20, right: 20, bottom: 40, left: 70 };
    this.hitboxes = [];
    this.type = 'bar';
  }

  colors() {
    const dark = document.body.classList.contains('dark');
    return { grid: dark ? '#334155' : '#e5e7eb', text: dark ? '#94a3b8' : '#6b7280' };
  }

  niceMax(value) {
    if (value <= 0) return 1;
    const exp = Math.pow(10, Math.floor(Math.log10(value)));
    const f = value / exp;
    const nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
    return nice * exp;
  }

  draw(labels, series, format) {
    const { ctx, canvas, padding } = this;
    const width = canvas.width - padding.left - padding.right;
    const height = canvas.height - padding.top - padding.bottom;
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    this.hitboxes = [];
    if (series.length === 0 || labels.length === 0) {
      ctx.fillStyle = this.colors().text;
      ctx.font = '16px sans-serif';
      ctx.fillText('Select at least one region to see data', canvas.width / 2 - 140, canvas.height / 2);
      return;
    }
    const maxValue = this.type === 'stacked'
      ? Math.max(...labels.map((_, i) => series.reduce((s, ser) => s + ser.values[i], 0)))
      : Math.max(...series.flatMap(s => s.values));
    const max = this.niceMax(maxValue);
    this.drawAxes(labels, max, width, height, format);
    if (this.type === 'line') this.drawLines(labels, series, max, width, height, format);
    else if (this.type === 'stacked') this.drawStacked(labels, series, max, width, height, format);
    else this.drawBars(labels, series, max, width, height, format);
  }

  drawAxes(labels, max, width, height, format) {
    const { ctx, padding } = this;
    const c = this.colors();
    ctx.strokeStyle = c.grid;
    ctx.fillStyle = c.text;
    ctx.font = '12px sans-serif';
    for (let i = 0; i <= 5; i++) {
      const y = padding.top + height - (height * i) / 5;
      ctx.beginPath();
      ctx.moveTo(padding.left, y);
      ctx.lineTo(padding.left + width, y);
      ctx.stroke();
      ctx.fillText(format((max * i) / 5), 8, y + 4);
    }
    const step = width / labels.length;
    labels.forEach((label, i) => ctx.fillText(label, padding.left + step * i + step / 2 - 10, padding.top + height + 20));
  }

  drawBars(labels, series, max, width, height, format) {
    const { ctx, padding } = this;
    const group = width / labels.length;
    const barWidth = (group * 0.8) / series.length;
    labels.forEach((label, i) => {
      series.forEach((s, j) => {
        const h = (s.values[i] / max) * height;
        const x = padding.left + group * i + group * 0.1 + barWidth * j;
        const y = padding.top + height - h;
        ctx.fillStyle = s.color;
        ctx.fillRect(x, y, barWidth - 2, h);
        this.hitboxes.push({ x, y, w: barWidth - 2, h, text: `${label} · ${s.name}: ${format(s.values[i])}` });
      });
    });
  }

  drawStacked(labels, series, max, width, height, format) {
    const { ctx, padding } = this;
    const group = width / labels.length;
    labels.forEach((label, i) => {
      let base = 0;
      series.forEach(s => {
        const h = (s.values[i] / max) * height;
        const x = padding.left + group * i + group * 0.15;
        const y = padding.top + height - base - h;
        ctx.fillStyle = s.color;
        ctx.fillRect(x, y, group * 0.7, h);
        this.hitboxes.push({ x, y, w: group * 0.7, h, text: `${label} · ${s.name}: ${format(s.values[i])}` });
        base += h;
      });
    });
  }

  drawLines(labels, series, max, width, height, format) {
    const { ctx, padding } = this;
    const step = width / labels.length;
    series.forEach(s => {
      ctx.strokeStyle = s.color;
      ctx.lineWidth = 2;
      ctx.beginPath();
      s.values.forEach((v, i) => {
        const x = padding.left + step * i + step / 2;
        const y = padding.top + height - (v / max) * height;
        if (i === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y);
        this.hitboxes.push({ x: x - 6, y: y - 6, w: 12, h: 12, text: `${labels[i]} · ${s.name}: ${format(v)}` });
      });
      ctx.stroke();
      ctx.lineWidth = 1;
    });
  }

  hit(x, y) {
    return this.hitboxes.find(b => x >= b.x && x <= b.x + b.w && y >= b.y && y <= b.y + b.h) || null;
  }
}
