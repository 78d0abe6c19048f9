import { createHmac, timingSafeEqual } from 'node:crypto';
import secureJson from 'secure-json-parse';
import { invalid } from '../../errors.ts';

/**
 * How each shop asks for keys and signs its request (contract §12.2). Pure: bytes and headers in, an order out.
 *
 * - generic (Keyward's own): `X-Keyward-Signature: sha256=<hex HMAC-SHA256 of the raw body>`; body
 *   `{ orderId, quantity, email?, chatId? }`.
 * - Sellix dynamic products: `X-Sellix-Signature: <hex HMAC-SHA512 of the raw body>` under the shop's webhook
 *   secret; event `product:dynamic` with the order in `data` (`uniqid`, `quantity`, `customer_email`); for a
 *   cart (`type: SHOPPING_CART`) one request per product, `X-Sellix-Product-Id` naming it and its quantity in
 *   `data.cart` (`unit_quantity`). Sellix takes the whole response body as the product.
 * - SellAuth dynamic delivery: `X-Signature: <hex HMAC-SHA256 of the raw body>` under the shop's webhook secret;
 *   event `INVOICE.ITEM.DELIVER-DYNAMIC`, one request per invoice item (`id` = invoice, `item.id`,
 *   `item.quantity`, `email`). SellAuth shows the response text to the buyer.
 *
 * Neither shop signs a timestamp (SellAuth's `X-Timestamp` is outside its signature, so it proves nothing), so
 * there is no signed time to refuse old requests by; a replayed request is answered from the order's row and
 * makes nothing.
 */
export type Provider = 'generic' | 'sellix' | 'sellauth';
export const PROVIDERS: Provider[] = ['generic', 'sellix', 'sellauth'];

export interface OrderRequest {
  orderId: string;
  quantity: number;
  email: string | null;
  chatId: string | null;
}

export const MAX_QUANTITY = 100;
type Headers = Record<string, string | string[] | undefined>;
const header = (headers: Headers, name: string) => {
  const value = headers[name];
  return typeof value === 'string' ? value.trim() : undefined;
};

function hmacMatches(algorithm: 'sha256' | 'sha512', secret: string, raw: Buffer, presentedHex: string | undefined): boolean {
  if (!presentedHex || !/^[0-9a-fA-F]+$/.test(presentedHex)) return false;
  const expected = createHmac(algorithm, secret).update(raw).digest();
  const presented = Buffer.from(presentedHex, 'hex');
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/** Whether the request carries the shop's signature of exactly these bytes (compared in constant time). */
export function signatureValid(provider: Provider, secret: string, raw: Buffer, headers: Headers): boolean {
  switch (provider) {
    case 'generic': {
      const value = header(headers, 'x-keyward-signature');
      return value?.startsWith('sha256=') === true && hmacMatches('sha256', secret, raw, value.slice('sha256='.length));
    }
    case 'sellix':
      return hmacMatches('sha512', secret, raw, header(headers, 'x-sellix-signature'));
    case 'sellauth':
      return hmacMatches('sha256', secret, raw, header(headers, 'x-signature'));
  }
}

function parseObject(raw: Buffer): Record<string, unknown> {
  let body: unknown;
  try {
    body = secureJson.parse(raw.toString('utf8'), undefined, { protoAction: 'remove', constructorAction: 'remove' });
  } catch {
    throw invalid('body', 'The request body is not valid JSON');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid('body', 'The request body must be a JSON object');
  return body as Record<string, unknown>;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const PRINTABLE_ID = /^[\x20-\x7E]{1,128}$/;
const CHAT_ID = /^[0-9]{17,20}$/;

function quantityOf(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_QUANTITY) {
    throw invalid(field, `${field} must be a whole number from 1 to ${MAX_QUANTITY}`);
  }
  return value;
}

function orderIdOf(field: string, value: unknown): string {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !PRINTABLE_ID.test(text)) throw invalid(field, `${field} must be 1 to 128 printable characters`);
  return text;
}

// Text the databases cannot store alike: a NUL or a control character, or a lone surrogate (contract §10).
const UNSTORABLE = /[\x00-\x1F\x7F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** A shop's buyer email is kept for the orders list only: one that cannot be stored is left out, not refused. */
const emailOf = (value: unknown) =>
  typeof value === 'string' && value.length > 0 && value.length <= 254 && !UNSTORABLE.test(value) ? value : null;

const GENERIC_FIELDS = new Set(['orderId', 'quantity', 'email', 'chatId']);

function genericOrder(body: Record<string, unknown>): OrderRequest {
  // Keyward's own format follows its API's rule: an unknown field is refused, so a typo never passes silently.
  for (const name of Object.keys(body)) if (!GENERIC_FIELDS.has(name)) throw invalid(name, `${name} is not a field of an order`);
  if (typeof body.orderId !== 'string' || !PRINTABLE_ID.test(body.orderId)) {
    throw invalid('orderId', 'orderId must be 1 to 128 printable characters');
  }
  const quantity = quantityOf('quantity', body.quantity);
  if (body.email !== undefined && (typeof body.email !== 'string' || body.email.length > 254 || UNSTORABLE.test(body.email))) {
    throw invalid('email', 'email must be text of at most 254 characters');
  }
  if (body.chatId !== undefined && (typeof body.chatId !== 'string' || !CHAT_ID.test(body.chatId))) {
    throw invalid('chatId', 'chatId must be a Discord user id of 17 to 20 digits');
  }
  return {
    orderId: body.orderId,
    quantity,
    email: (body.email as string | undefined) ?? null,
    chatId: (body.chatId as string | undefined) ?? null,
  };
}

function sellixOrder(body: Record<string, unknown>, headers: Headers): OrderRequest {
  if (body.event !== 'product:dynamic') throw invalid('event', 'Only the product:dynamic event delivers keys');
  const data = body.data;
  if (!isObject(data)) throw invalid('data', 'data must be the order object');
  const orderId = orderIdOf('data.uniqid', data.uniqid);
  const email = emailOf(data.customer_email);
  if (data.type !== 'SHOPPING_CART') return { orderId, quantity: quantityOf('data.quantity', data.quantity), email, chatId: null };
  // A cart is one request per product: the header names which, and the order id is the cart's plus the product's.
  const productId = header(headers, 'x-sellix-product-id');
  if (!productId) throw invalid('X-Sellix-Product-Id', 'A cart order needs the X-Sellix-Product-Id header');
  const cart = Array.isArray(data.cart) ? data.cart : isObject(data.cart) && Array.isArray(data.cart.products) ? data.cart.products : [];
  const line = (cart as unknown[]).find((entry) => isObject(entry) && entry.uniqid === productId) as Record<string, unknown> | undefined;
  if (!line) throw invalid('data.cart', 'The cart holds no line for the product named by X-Sellix-Product-Id');
  return {
    orderId: orderIdOf('data.uniqid', `${orderId}:${productId}`),
    quantity: quantityOf('data.cart.unit_quantity', line.unit_quantity),
    email,
    chatId: null,
  };
}

function sellauthOrder(body: Record<string, unknown>): OrderRequest {
  if (body.event !== 'INVOICE.ITEM.DELIVER-DYNAMIC') throw invalid('event', 'Only the INVOICE.ITEM.DELIVER-DYNAMIC event delivers keys');
  const invoice = orderIdOf('id', body.id);
  const item = body.item;
  if (!isObject(item)) throw invalid('item', 'item must be the invoice item to deliver');
  // One request per invoice item: the order is the item, so two items of one invoice each get their keys.
  const orderId = orderIdOf('item.id', `${invoice}:${orderIdOf('item.id', item.id)}`);
  const customer = isObject(body.customer) ? body.customer : {};
  return { orderId, quantity: quantityOf('item.quantity', item.quantity), email: emailOf(body.email ?? customer.email), chatId: null };
}

/** The order a shop's (already authenticated) request asks for; a malformed one is a 400 naming the field. */
export function orderOf(provider: Provider, raw: Buffer, headers: Headers): OrderRequest {
  const body = parseObject(raw);
  switch (provider) {
    case 'generic':
      return genericOrder(body);
    case 'sellix':
      return sellixOrder(body, headers);
    case 'sellauth':
      return sellauthOrder(body);
  }
}
