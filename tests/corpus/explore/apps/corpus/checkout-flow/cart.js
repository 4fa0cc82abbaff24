// Cart model shared by the checkout page.
const SAMPLE_CART = [
  { id: 'ethiopia', name: 'Ethiopia Yirgacheffe — 250 g', price: 14.5, qty: 1 },
  { id: 'colombia', name: 'Colombia Huila — 500 g', price: 22.0, qty: 1 },
  { id: 'mug', name: 'Stoneware mug', price: 12.0, qty: 2 }
];

const Cart = {
  items: JSON.parse(JSON.stringify(SAMPLE_CART)),
  discountRate: 0,
  couponCode: null,

  subtotal() {
    return this.items.reduce((sum, item) => sum + item.price * item.qty, 0);
  },

  change(id, delta) {
    const item = this.items.find(i => i.id === id);
    if (!item) return;
    item.qty = Math.max(0, Math.min(10, item.qty + delta));
    if (item.qty === 0) this.remove(id);
  },

  remove(id) {
    this.items = this.items.filter(i => i.id !== id);
  },

  restore() {
    this.items = JSON.parse(JSON.stringify(SAMPLE_CART));
  },

  count() {
    return this.items.reduce((n, i) => n + i.qty, 0);
  }
};

const COUPONS = {
  WELCOME10: { rate: 0.10, label: '10% off your first order' },
  BEANS20: { rate: 0.20, label: '20% off — coffee lovers', minimum: 50 }
};

function money(value) {
  return '$' + value.toFixed(2);
}
