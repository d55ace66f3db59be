import { checkStock } from './stock';

function validateCart(cart) {
  if (cart.items.length === 0) return false;
  return checkStock(cart.items);
}

function submitOrder(cart) {
  const ok = validateCart(cart);
  return ok ? 'sent' : 'empty';
}

export function onCheckout(cart) {
  try {
    return submitOrder(cart);
  } catch (error) {
    print(error.stack);
    return 'failed';
  }
}
