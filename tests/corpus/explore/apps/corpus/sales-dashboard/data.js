// Generates deterministic sample sales data per year, region and month.
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const REGIONS = ['north', 'south', 'east', 'west'];
const REGION_COLORS = { north: '#6366f1', south: '#f59e0b', east: '#10b981', west: '#ef4444' };

function seeded(seed) {
  let s = seed;
  return () => {
    s = (s * 9301 + 49297) % 233280;
    return s / 233280;
  };
}

function buildDataset() {
  const data = {};
  [2021, 2022, 2023, 2024].forEach(year => {
    const rand = seeded(year);
    data[year] = {};
    REGIONS.forEach((region, r) => {
      data[year][region] = MONTHS.map((_, m) => {
        const season = 1 + 0.3 * Math.sin((m / 12) * Math.PI * 2 + r);
        const growth = 1 + (year - 2021) * 0.08;
        const units = Math.round((200 + rand() * 150) * season * growth);
        const price = 40 + r * 5;
        const cost = price * (0.55 + rand() * 0.2);
        return { units, revenue: units * price, margin: Math.round(((price - cost) / price) * 1000) / 10 };
      });
    });
  });
  return data;
}

const SALES = buildDataset();
