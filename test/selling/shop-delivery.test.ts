import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService, type SeededService } from '../helpers/seed.ts';

// Contract §12.2: the shops' delivery endpoints. Signatures are made here with Node's crypto, independently of the code
// under test, in each shop's documented form.
const t = useTestApp();
const SECRETS = { genericSecret: 'generic-shop-secret', sellixSecret: 'sellix-webhook-secret', sellauthSecret: 'sellauth-webhook-secret' };
const CHAT_ID = '123456789012345678';

const api = (s: SeededService, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) =>
  call(t().app, method, `/api/v1${path}`, { key: s.serviceKey, body });
const hmac = (algorithm: 'sha256' | 'sha512', secret: string, text: string) => createHmac(algorithm, secret).update(text).digest('hex');

async function shopWithProduct(
  product: Record<string, unknown> = { name: 'Month', expirationType: 'byDays', days: 30 },
  secrets = SECRETS,
) {
  const s = await seedService(t().ctx);
  expect((await api(s, 'PUT', '/keys/api/shop', secrets)).status).toBe(200);
  const created = await api(s, 'POST', '/keys/api/products', product);
  expect(created.status).toBe(201);
  return { s, productId: created.body.data.id as string };
}

async function post(provider: string, productId: string, body: string, headers: Record<string, string>) {
  const res = await t().app.inject({
    method: 'POST',
    url: `/api/v1/public/shop/${provider}/${productId}`,
    payload: body,
    headers: { 'content-type': 'application/json', ...headers },
  });
  return { status: res.statusCode, body: res.body, headers: res.headers };
}
const generic = (productId: string, order: Record<string, unknown>, secret = SECRETS.genericSecret) => {
  const body = JSON.stringify(order);
  return post('generic', productId, body, { 'x-keyward-signature': `sha256=${hmac('sha256', secret, body)}` });
};

const keysOf = (serviceId: string) =>
  t().ctx.db.selectFrom('generatedKeys').selectAll().where('serviceId', '=', serviceId).orderBy('key').execute();
const ordersOf = (serviceId: string) => t().ctx.db.selectFrom('shopOrders').selectAll().where('serviceId', '=', serviceId).execute();

async function expectNothingMade(serviceId: string) {
  expect(await keysOf(serviceId)).toEqual([]);
  expect(await ordersOf(serviceId)).toEqual([]);
}

describe('POST /api/v1/public/shop/generic/:productId', () => {
  it("answers quantity new keys of the product as text, one per line, with the buyer's chat id, in one audited order", async () => {
    const { s, productId } = await shopWithProduct({
      name: 'Month',
      expirationType: 'byDays',
      days: 30,
      isPremium: true,
      maxHwids: 2,
      note: 'sold',
    });
    const res = await generic(productId, { orderId: 'order-1', quantity: 3, email: 'buyer@example.com', chatId: CHAT_ID });
    expect(res.status, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    const keys = res.body.split('\n');
    expect(keys).toHaveLength(3);
    for (const key of keys) expect(key).toMatch(/^[A-Za-z0-9]{32}$/);
    const rows = await keysOf(s.id);
    expect(rows.map((r) => r.key)).toEqual([...keys].sort());
    for (const row of rows) {
      expect(row).toMatchObject({
        expirationType: 'byDays',
        expiresAt: t().clock.now + 30 * 86_400_000,
        isPremium: 1,
        maxHwids: 2,
        note: 'sold',
        chatId: CHAT_ID,
        status: 'active',
      });
    }
    const audit = await t()
      .ctx.db.selectFrom('auditLog')
      .selectAll()
      .where('serviceId', '=', s.id)
      .where('action', '=', 'order.delivered')
      .execute();
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0]!.details)).toMatchObject({ orderId: 'order-1', quantity: 3, provider: 'generic' });
    expect(audit[0]!.actorKind).toBe('system');

    const orders = await api(s, 'GET', '/keys/api/orders');
    expect(orders.body.data).toMatchObject({ total: 1 });
    expect(orders.body.data.items).toEqual([
      {
        orderId: 'order-1',
        shop: 'generic',
        productId,
        productName: 'Month',
        quantity: 3,
        keys,
        email: 'buyer@example.com',
        createdAt: new Date(t().clock.now).toISOString(),
      },
    ]);
  });

  it('answers the same keys to the same orderId again (a replay or a retry) and makes none', async () => {
    const { s, productId } = await shopWithProduct();
    const first = await generic(productId, { orderId: 'again', quantity: 2 });
    expect(first.status).toBe(200);
    t().clock.advance(3_600_000);
    const second = await generic(productId, { orderId: 'again', quantity: 2 });
    expect(second.status).toBe(200);
    expect(second.body).toBe(first.body);
    // A retry with another quantity is still the same order.
    expect((await generic(productId, { orderId: 'again', quantity: 5 })).body).toBe(first.body);
    expect(await keysOf(s.id)).toHaveLength(2);
    expect(await ordersOf(s.id)).toHaveLength(1);
  });

  it('makes afterRedeem keys whose time starts at redemption', async () => {
    const { s, productId } = await shopWithProduct({ name: 'Week', expirationType: 'afterRedeem', days: 7 });
    expect((await generic(productId, { orderId: 'ar', quantity: 1 })).status).toBe(200);
    expect(await keysOf(s.id)).toEqual([expect.objectContaining({ expirationType: 'afterRedeem', expiresAt: null, durationDays: 7 })]);
  });

  it.each([
    ['no signature', (_body: string) => ({})],
    ['a signature under another secret', (body: string) => ({ 'x-keyward-signature': `sha256=${hmac('sha256', 'wrong', body)}` })],
    [
      'a signature of other bytes',
      (body: string) => ({ 'x-keyward-signature': `sha256=${hmac('sha256', SECRETS.genericSecret, body + ' ')}` }),
    ],
    ['a signature without its sha256= prefix', (body: string) => ({ 'x-keyward-signature': hmac('sha256', SECRETS.genericSecret, body) })],
    ['a signature that is not hex', (_body: string) => ({ 'x-keyward-signature': 'sha256=zz' })],
    ['the Sellix signature header', (body: string) => ({ 'x-sellix-signature': hmac('sha512', SECRETS.genericSecret, body) })],
  ])('refuses %s with 401 and makes nothing', async (_name, sign) => {
    const { s, productId } = await shopWithProduct();
    const body = JSON.stringify({ orderId: 'forged', quantity: 1 });
    const res = await post('generic', productId, body, sign(body));
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
    await expectNothingMade(s.id);
  });

  it('is 404 for an unknown or deleted product and for a service without the generic secret', async () => {
    const { s, productId } = await shopWithProduct();
    expect((await generic('00000000-0000-4000-8000-000000000000', { orderId: 'x', quantity: 1 })).status).toBe(404);
    expect((await api(s, 'PUT', '/keys/api/shop', { genericSecret: null })).status).toBe(200);
    const noSecret = await generic(productId, { orderId: 'x', quantity: 1 });
    expect(noSecret.status).toBe(404);
    expect(JSON.parse(noSecret.body)).toMatchObject({ code: 'NOT_FOUND' });
    await expectNothingMade(s.id);

    const other = await shopWithProduct();
    expect((await call(t().app, 'DELETE', `/api/v1/keys/api/products/${other.productId}`, { key: other.s.serviceKey })).status).toBe(200);
    expect((await generic(other.productId, { orderId: 'x', quantity: 1 })).status).toBe(404);
  });

  it.each([
    [{ orderId: 'q', quantity: 0 }, 'quantity'],
    [{ orderId: 'q', quantity: 101 }, 'quantity'],
    [{ orderId: 'q', quantity: '3' }, 'quantity'],
    [{ orderId: 'q', quantity: 1.5 }, 'quantity'],
    [{ orderId: 'q' }, 'quantity'],
    [{ orderId: '', quantity: 1 }, 'orderId'],
    [{ orderId: 'x'.repeat(129), quantity: 1 }, 'orderId'],
    [{ orderId: 'line\nbreak', quantity: 1 }, 'orderId'],
    [{ orderId: 7, quantity: 1 }, 'orderId'],
    [{ orderId: 'q', quantity: 1, chatId: '12' }, 'chatId'],
    [{ orderId: 'q', quantity: 1, email: 5 }, 'email'],
    [{ orderId: 'q', quantity: 1, email: 'a\u0000b@example.com' }, 'email'],
    [{ orderId: 'q', quantity: 1, email: '\ud800@example.com' }, 'email'],
    [{ orderId: 'q', quantity: 1, coupon: 'FREE' }, 'coupon'],
  ])('refuses the signed order %j with a 400 naming %s, and makes nothing', async (order, field) => {
    const { s, productId } = await shopWithProduct();
    const res = await generic(productId, order);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ success: false, code: 'VALIDATION_ERROR', field });
    await expectNothingMade(s.id);
  });

  it('accepts quantity 100 and refuses a signed body that is not JSON', async () => {
    const { s, productId } = await shopWithProduct();
    expect((await generic(productId, { orderId: 'big', quantity: 100 })).body.split('\n')).toHaveLength(100);
    const body = '{"orderId":';
    const res = await post('generic', productId, body, { 'x-keyward-signature': `sha256=${hmac('sha256', SECRETS.genericSecret, body)}` });
    expect(res.status).toBe(400);
    expect(await ordersOf(s.id)).toHaveLength(1);
  });

  it("keeps one shop's orders apart from another service's with the same order id", async () => {
    const a = await shopWithProduct();
    const b = await shopWithProduct();
    const fromA = await generic(a.productId, { orderId: 'shared-id', quantity: 1 });
    const fromB = await generic(b.productId, { orderId: 'shared-id', quantity: 1 });
    expect(fromA.status).toBe(200);
    expect(fromB.status).toBe(200);
    expect(fromA.body).not.toBe(fromB.body);
    expect((await api(b.s, 'GET', '/keys/api/orders')).body.data.items.map((o: { keys: string[] }) => o.keys)).toEqual([[fromB.body]]);
  });
});

describe('POST /api/v1/public/shop/sellix/:productId (Sellix dynamic product)', () => {
  const sellix = (productId: string, payload: unknown, headers: Record<string, string> = {}, secret = SECRETS.sellixSecret) => {
    const body = JSON.stringify(payload);
    return post('sellix', productId, body, {
      'x-sellix-signature': hmac('sha512', secret, body),
      'x-sellix-event': 'product:dynamic',
      ...headers,
    });
  };

  it('delivers data.quantity keys for the order data.uniqid, once', async () => {
    const { s, productId } = await shopWithProduct();
    const payload = { event: 'product:dynamic', data: { uniqid: 'sx-1', type: 'PRODUCT', quantity: 2, customer_email: 'b@example.com' } };
    const res = await sellix(productId, payload);
    expect(res.status, res.body).toBe(200);
    expect(res.body.split('\n')).toHaveLength(2);
    expect((await sellix(productId, payload)).body).toBe(res.body);
    expect(await ordersOf(s.id)).toEqual([
      expect.objectContaining({ provider: 'sellix', orderId: 'sx-1', quantity: 2, email: 'b@example.com' }),
    ]);
  });

  it('delivers the cart line of the product named by X-Sellix-Product-Id', async () => {
    const { s, productId } = await shopWithProduct();
    const payload = {
      event: 'product:dynamic',
      data: {
        uniqid: 'cart-1',
        type: 'SHOPPING_CART',
        cart: {
          products: [
            { uniqid: 'other', unit_quantity: 5 },
            { uniqid: 'mine', unit_quantity: 3 },
          ],
        },
      },
    };
    const res = await sellix(productId, payload, { 'x-sellix-product-id': 'mine' });
    expect(res.status, res.body).toBe(200);
    expect(res.body.split('\n')).toHaveLength(3);
    expect(await ordersOf(s.id)).toEqual([expect.objectContaining({ orderId: 'cart-1:mine', quantity: 3 })]);
  });

  it('refuses a wrong signature (401) and other events or quantities (400), making nothing', async () => {
    const { s, productId } = await shopWithProduct();
    const payload = { event: 'product:dynamic', data: { uniqid: 'sx-2', quantity: 1 } };
    expect((await sellix(productId, payload, {}, 'not-the-secret')).status).toBe(401);
    const sha256 = JSON.stringify(payload);
    expect((await post('sellix', productId, sha256, { 'x-sellix-signature': hmac('sha256', SECRETS.sellixSecret, sha256) })).status).toBe(
      401,
    );
    expect((await sellix(productId, { event: 'order:paid', data: { uniqid: 'sx-2', quantity: 1 } })).status).toBe(400);
    const tooMany = await sellix(productId, { event: 'product:dynamic', data: { uniqid: 'sx-2', quantity: 101 } });
    expect(tooMany.status).toBe(400);
    expect(JSON.parse(tooMany.body).field).toBe('data.quantity');
    await expectNothingMade(s.id);
  });
});

describe('POST /api/v1/public/shop/sellauth/:productId (SellAuth dynamic delivery)', () => {
  const sellauth = (productId: string, payload: unknown, secret = SECRETS.sellauthSecret) => {
    const body = JSON.stringify(payload);
    return post('sellauth', productId, body, {
      'x-signature': hmac('sha256', secret, body),
      'x-timestamp': String(Math.floor(t().clock.now / 1000)),
      'idempotency-key': 'c47107fff54fd943db6939b9935af39a',
    });
  };
  const item = (id: number, quantity: number) => ({
    event: 'INVOICE.ITEM.DELIVER-DYNAMIC',
    id: 10042,
    unique_id: '8e32b8f24c4a0-0000000010042',
    email: 'john.doe@example.com',
    customer: { id: 501, email: 'john.doe@example.com' },
    item: { id, product_id: 55, quantity },
  });

  it('delivers item.quantity keys per invoice item, each item once', async () => {
    const { s, productId } = await shopWithProduct();
    const first = await sellauth(productId, item(1, 2));
    expect(first.status, first.body).toBe(200);
    expect(first.body.split('\n')).toHaveLength(2);
    const second = await sellauth(productId, item(2, 1));
    expect(second.body.split('\n')).toHaveLength(1);
    expect((await sellauth(productId, item(1, 2))).body).toBe(first.body);
    expect((await keysOf(s.id)).length).toBe(3);
    expect((await ordersOf(s.id)).map((o) => o.orderId).sort()).toEqual(['10042:1', '10042:2']);
  });

  it('refuses a wrong signature with 401 and a malformed item with 400, making nothing', async () => {
    const { s, productId } = await shopWithProduct();
    expect((await sellauth(productId, item(1, 1), 'wrong')).status).toBe(401);
    const zero = await sellauth(productId, item(1, 0));
    expect(zero.status).toBe(400);
    expect(JSON.parse(zero.body).field).toBe('item.quantity');
    expect((await sellauth(productId, { ...item(1, 1), event: 'NOTIFICATION.SHOP_INVOICE_CREATED' })).status).toBe(400);
    await expectNothingMade(s.id);
  });

  it("is 404 while the service has no SellAuth secret, even for a request signed with another shop's secret", async () => {
    const { s, productId } = await shopWithProduct(undefined, {
      genericSecret: 'only-generic',
      sellixSecret: null,
      sellauthSecret: null,
    } as never);
    expect((await sellauth(productId, item(1, 1), 'only-generic')).status).toBe(404);
    await expectNothingMade(s.id);
  });
});
