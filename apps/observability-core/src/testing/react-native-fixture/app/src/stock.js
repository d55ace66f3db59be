export function checkStock(items) {
  const available = 2;
  if (items.length > available) {
    throw new Error('out of stock');
  }
  return true;
}
