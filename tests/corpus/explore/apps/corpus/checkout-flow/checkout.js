// Checkout flow: cart → shipping → payment → confirmation.
const SHIPPING_PRICES = { standard: 5.99, express: 9.99, overnight: 24.99 };
const TAX_RATE = 0.08;

const cartList = document.getElementById('cartItems');
const shippingForm = document.getElementById('shippingForm');
const paymentForm = document.getElementById('paymentForm');
let shippingDone = false;

function shippingCost() {
  if (Cart.items.length === 0) return 0;
  const method = shippingForm.elements.shipping.value;
  if (method === 'standard' && Cart.subtotal() >= 40) return 0;
  return SHIPPING_PRICES[method];
}

function renderSummary() {
  const subtotal = Cart.subtotal();
  const discount = subtotal * Cart.discountRate;
  const ship = shippingCost();
  const tax = (subtotal - discount) * TAX_RATE;
  document.getElementById('subtotal').textContent = money(subtotal);
  document.getElementById('shippingCost').textContent = ship === 0 ? 'Free' : money(ship);
  document.getElementById('discount').textContent = '−' + money(discount);
  document.getElementById('tax').textContent = money(tax);
  document.getElementById('total').textContent = money(subtotal - discount + ship + tax);
}

function renderCart() {
  cartList.innerHTML = '';
  Cart.items.forEach(item => {
    const li = document.createElement('li');
    li.innerHTML = `
      <span>${item.name}</span>
      <span class="qty">
        <button type="button" data-action="dec" aria-label="Fewer ${item.name}">−</button>
        <span>${item.qty}</span>
        <button type="button" data-action="inc" aria-label="More ${item.name}">+</button>
      </span>
      <span>${money(item.price * item.qty)}</span>
      <button type="button" class="remove" data-action="remove" aria-label="Remove ${item.name}">✕</button>`;
    li.querySelectorAll('button').forEach(btn => btn.addEventListener('click', () => {
      const action = btn.dataset.action;
      if (action === 'inc') Cart.change(item.id, 1);
      else if (action === 'dec') Cart.change(item.id, -1);
      else Cart.remove(item.id);
      renderCart();
    }));
    cartList.appendChild(li);
  });
  const empty = Cart.items.length === 0;
  document.getElementById('emptyCart').classList.toggle('hidden', !empty);
  document.getElementById('toShipping').disabled = empty;
  revalidateCoupon();
  renderSummary();
}

function openSection(id) {
  ['shippingSection', 'paymentSection'].forEach(s =>
    document.getElementById(s).classList.toggle('collapsed', s !== id));
}

function showErrors(listId, errors) {
  document.getElementById(listId).innerHTML = errors.map(e => `<li>${e}</li>`).join('');
}

function validateShipping() {
  const f = shippingForm.elements;
  const errors = [];
  ['firstName', 'lastName', 'address', 'city'].forEach(name => {
    if (!f[name].value.trim()) errors.push(`${f[name].labels[0].textContent} is required.`);
  });
  if (!/^\d{5}(-\d{4})?$/.test(f.zip.value.trim())) errors.push('ZIP code must be 5 digits (or ZIP+4).');
  const phone = f.phone.value.replace(/[\s()-]/g, '');
  if (phone && !/^\+?\d{7,15}$/.test(phone)) errors.push('Phone number looks wrong.');
  return errors;
}

function luhnValid(number) {
  let sum = 0;
  let double = false;
  for (let i = number.length - 1; i >= 0; i--) {
    let digit = Number(number[i]);
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

function cardBrand(number) {
  if (/^4/.test(number)) return 'Visa';
  if (/^5[1-5]/.test(number)) return 'Mastercard';
  if (/^3[47]/.test(number)) return 'American Express';
  return '';
}

function expiryValid(value) {
  const match = /^(0[1-9]|1[0-2])\/(\d{2})$/.exec(value.trim());
  if (!match) return false;
  const month = Number(match[1]);
  const year = 2000 + Number(match[2]);
  const now = new Date();
  return year > now.getFullYear() || (year === now.getFullYear() && month >= now.getMonth() + 1);
}

function validatePayment() {
  const f = paymentForm.elements;
  const errors = [];
  const number = f.cardNumber.value.replace(/\s/g, '');
  if (!f.cardName.value.trim()) errors.push('Name on card is required.');
  if (!/^\d{13,19}$/.test(number)) errors.push('Card number must be 13–19 digits.');
  else if (!luhnValid(number)) errors.push('That card number is not valid.');
  if (!expiryValid(f.expiry.value)) errors.push('Expiry must be a future date as MM/YY.');
  const cvvLength = cardBrand(number) === 'American Express' ? 4 : 3;
  if (!new RegExp(`^\\d{${cvvLength}}$`).test(f.cvv.value)) errors.push(`CVV must be ${cvvLength} digits.`);
  if (!document.getElementById('sameBilling').checked && !f.billingAddress.value.trim()) {
    errors.push('Billing address is required.');
  }
  return errors;
}

function formatCardNumber(event) {
  const digits = event.target.value.replace(/\D/g, '').slice(0, 19);
  event.target.value = digits.replace(/(.{4})/g, '$1 ').trim();
  document.getElementById('cardBrand').textContent = cardBrand(digits);
}

function applyCoupon(code) {
  const message = document.getElementById('couponMessage');
  const coupon = COUPONS[code.toUpperCase()];
  if (!code) {
    message.textContent = 'Enter a code first.';
    return;
  }
  if (!coupon) {
    Cart.discountRate = 0;
    Cart.couponCode = null;
    message.textContent = `"${code}" is not a valid code.`;
  } else if (coupon.minimum && Cart.subtotal() < coupon.minimum) {
    message.textContent = `${code.toUpperCase()} needs a subtotal of at least ${money(coupon.minimum)}.`;
  } else {
    Cart.discountRate = coupon.rate;
    Cart.couponCode = code.toUpperCase();
    message.textContent = `Applied: ${coupon.label}.`;
  }
  renderSummary();
}

function revalidateCoupon() {
  if (!Cart.couponCode) return;
  const coupon = COUPONS[Cart.couponCode];
  if (coupon.minimum && Cart.subtotal() < coupon.minimum) {
    Cart.discountRate = 0;
    document.getElementById('couponMessage').textContent = `${Cart.couponCode} was removed: the subtotal is too low now.`;
    Cart.couponCode = null;
  }
}

function placeOrder() {
  const number = 'BB-' + Math.floor(100000 + Math.random() * 900000);
  const method = shippingForm.elements.shipping.value;
  const days = { standard: 6, express: 2, overnight: 1 }[method];
  const eta = new Date(Date.now() + days * 86400000);
  document.getElementById('orderNumber').textContent = number;
  document.getElementById('deliveryEstimate').textContent =
    `Estimated delivery: ${eta.toDateString()} to ${shippingForm.elements.city.value}.`;
  ['cartSection', 'shippingSection', 'paymentSection'].forEach(id => document.getElementById(id).classList.add('hidden'));
  document.getElementById('confirmation').classList.remove('hidden');
}

function newOrder() {
  Cart.restore();
  Cart.discountRate = 0;
  Cart.couponCode = null;
  shippingForm.reset();
  paymentForm.reset();
  shippingDone = false;
  ['cartSection', 'shippingSection', 'paymentSection'].forEach(id => document.getElementById(id).classList.remove('hidden'));
  document.getElementById('confirmation').classList.add('hidden');
  openSection(null);
  renderCart();
}

document.getElementById('toShipping').addEventListener('click', () => openSection('shippingSection'));
document.getElementById('restoreCart').addEventListener('click', () => { Cart.restore(); renderCart(); });
shippingForm.addEventListener('submit', (e) => {
  e.preventDefault();
  const errors = validateShipping();
  showErrors('shippingErrors', errors);
  if (errors.length === 0) {
    shippingDone = true;
    openSection('paymentSection');
  }
});
shippingForm.addEventListener('change', (e) => {
  if (e.target.name === 'shipping') renderSummary();
});
paymentForm.addEventListener('submit', (e) => {
  e.preventDefault();
  if (!shippingDone) {
    showErrors('paymentErrors', ['Please complete the shipping details first.']);
    openSection('shippingSection');
    return;
  }
  const errors = validatePayment();
  showErrors('paymentErrors', errors);
  if (errors.length === 0) placeOrder();
});
document.getElementById('cardNumber').addEventListener('input', formatCardNumber);
document.getElementById('sameBilling').addEventListener('change', (e) => {
  document.getElementById('billingFields').classList.toggle('hidden', e.target.checked);
});
document.getElementById('couponForm').addEventListener('submit', (e) => {
  e.preventDefault();
  applyCoupon(document.getElementById('coupon').value.trim());
});
document.getElementById('newOrder').addEventListener('click', newOrder);

renderCart();
