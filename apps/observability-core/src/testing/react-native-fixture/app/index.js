import { onCheckout } from './src/checkout';

onCheckout({ items: [1, 2, 3] });
