import type { paths } from '../api/schema';

export const PRODUCTS_PATH = '/api/v1/keys/api/products' as const;
export const PRODUCT_PATH = '/api/v1/keys/api/products/{id}' as const;
export const SHOP_PATH = '/api/v1/keys/api/shop' as const;
export const ORDERS_PATH = '/api/v1/keys/api/orders' as const;

/** A product as the API answers it (the typed client's schema, generated from the server). */
export type Product = paths[typeof PRODUCTS_PATH]['get']['responses'][200]['content']['application/json']['data']['items'][number];
export type ShopSecrets = paths[typeof SHOP_PATH]['get']['responses'][200]['content']['application/json']['data'];
export type Order = paths[typeof ORDERS_PATH]['get']['responses'][200]['content']['application/json']['data']['items'][number];
export type Expiration = 'byDays' | 'afterRedeem' | 'lifetime';

export const SHOP_NAMES: Record<string, string> = { generic: 'Any shop', sellix: 'Sellix', sellauth: 'SellAuth' };

/** What a product's keys last, in words. */
export function expirationText(product: Pick<Product, 'expirationType' | 'days'>) {
  if (product.expirationType === 'lifetime') return 'Lifetime';
  const days = `${product.days} day${product.days === 1 ? '' : 's'}`;
  return product.expirationType === 'afterRedeem' ? `${days} from redemption` : `${days} from sale`;
}

/**
 * A number typed in a form, checked rather than changed (contract §15): the sentence to show, or null when it
 * is a whole number in range.
 */
export function wholeNumberError(label: string, value: number | string, min: number, max: number): string | null {
  const n = typeof value === 'number' ? value : value.trim() === '' ? NaN : Number(value);
  if (!Number.isInteger(n) || n < min || n > max) return `${label} must be a whole number from ${min} to ${max}.`;
  return null;
}
