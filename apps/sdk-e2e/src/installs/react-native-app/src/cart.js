// The app's own code: an item without a quantity crashes the checkout.

export function totalOf(cart) {
  return cart.items.reduce((sum, item) => sum + item.price * item.quantity.count, 0);
}

export function checkout(cart) {
  const total = totalOf(cart);
  return { total, currency: 'EUR' };
}
