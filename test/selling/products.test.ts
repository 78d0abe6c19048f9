import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService, type SeededService } from '../helpers/seed.ts';

const t = useTestApp();
const api = (s: SeededService, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown, key = s.serviceKey) =>
  call(t().app, method, `/api/v1${path}`, { key, body });
const productRow = (id: string) => t().ctx.db.selectFrom('products').selectAll().where('id', '=', id).executeTakeFirst();
const auditOf = (serviceId: string, action: string) =>
  t().ctx.db.selectFrom('auditLog').selectAll().where('serviceId', '=', serviceId).where('action', '=', action).execute();

describe('products (contract §12.2)', () => {
  it('creates a product with its delivery URLs built from BASE_URL, lists, edits and deletes it', async () => {
    const s = await seedService(t().ctx);
    const created = await api(s, 'POST', '/keys/api/products', {
      name: 'Monthly',
      expirationType: 'afterRedeem',
      days: 30,
      isPremium: true,
      maxHwids: 2,
      note: 'shop',
    });
    expect(created.status).toBe(201);
    const product = created.body.data;
    expect(product).toMatchObject({ name: 'Monthly', expirationType: 'afterRedeem', days: 30, isPremium: true, maxHwids: 2, note: 'shop' });
    expect(product.deliveryUrls).toEqual({
      generic: `http://keyward.test/api/v1/public/shop/generic/${product.id}`,
      sellix: `http://keyward.test/api/v1/public/shop/sellix/${product.id}`,
      sellauth: `http://keyward.test/api/v1/public/shop/sellauth/${product.id}`,
    });
    const list = await api(s, 'GET', '/keys/api/products');
    expect(list.body.data).toMatchObject({ total: 1, page: 1, limit: 20, totalPages: 1 });
    expect(list.body.data.items).toEqual([product]);

    t().clock.advance(1000);
    const edited = await api(s, 'PUT', `/keys/api/products/${product.id}`, { expirationType: 'lifetime', name: 'Forever' });
    expect(edited.status).toBe(200);
    expect(edited.body.data).toMatchObject({ id: product.id, name: 'Forever', expirationType: 'lifetime', days: null, maxHwids: 2 });
    expect(await productRow(product.id)).toMatchObject({ name: 'Forever', expirationType: 'lifetime', days: null });

    const deleted = await api(s, 'DELETE', `/keys/api/products/${product.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toEqual({ deleted: 1 });
    expect(await productRow(product.id)).toBeUndefined();
    expect((await auditOf(s.id, 'product.create')).length).toBe(1);
    expect((await auditOf(s.id, 'product.update')).length).toBe(1);
    expect((await auditOf(s.id, 'product.delete')).length).toBe(1);
  });

  it.each([
    [{ expirationType: 'byDays' }, 'name'],
    [{ name: '', expirationType: 'byDays', days: 1 }, 'name'],
    [{ name: 'x'.repeat(65), expirationType: 'byDays', days: 1 }, 'name'],
    [{ name: 'p', expirationType: 'byDate', days: 1 }, 'expirationType'],
    [{ name: 'p', expirationType: 'byDays' }, 'days'],
    [{ name: 'p', expirationType: 'afterRedeem', days: 0 }, 'days'],
    [{ name: 'p', expirationType: 'afterRedeem', days: 3651 }, 'days'],
    [{ name: 'p', expirationType: 'lifetime', days: 5 }, 'days'],
    [{ name: 'p', expirationType: 'lifetime', maxHwids: 101 }, 'maxHwids'],
    [{ name: 'p', expirationType: 'lifetime', isPremium: 'true' }, 'isPremium'],
    [{ name: 'p', expirationType: 'lifetime', price: 5 }, 'price'],
  ])('refuses %j with a 400 naming %s, and creates nothing', async (body, field) => {
    const s = await seedService(t().ctx);
    const res = await api(s, 'POST', '/keys/api/products', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', field });
    expect((await api(s, 'GET', '/keys/api/products')).body.data.total).toBe(0);
  });

  it('refuses an edit whose result lacks days, and keeps the product', async () => {
    const s = await seedService(t().ctx);
    const { id } = (await api(s, 'POST', '/keys/api/products', { name: 'Life', expirationType: 'lifetime' })).body.data;
    const res = await api(s, 'PUT', `/keys/api/products/${id}`, { expirationType: 'byDays' });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('days');
    expect(await productRow(id)).toMatchObject({ expirationType: 'lifetime', days: null });
  });

  it("treats another account's product as missing (404) and leaves it alone", async () => {
    const owner = await seedService(t().ctx);
    const other = await seedService(t().ctx);
    const { id } = (await api(owner, 'POST', '/keys/api/products', { name: 'Mine', expirationType: 'byDays', days: 3 })).body.data;
    expect((await api(other, 'PUT', `/keys/api/products/${id}`, { name: 'Stolen' })).status).toBe(404);
    expect((await api(other, 'DELETE', `/keys/api/products/${id}`)).status).toBe(404);
    expect((await api(other, 'GET', '/keys/api/products')).body.data.items).toEqual([]);
    expect(await productRow(id)).toMatchObject({ name: 'Mine' });
  });

  it('needs allowManageKeys to change products and secrets, not to read them', async () => {
    const s = await seedService(t().ctx);
    await t().ctx.db.updateTable('services').set({ allowManageKeys: 0 }).where('id', '=', s.id).execute();
    const denied = await api(s, 'POST', '/keys/api/products', { name: 'p', expirationType: 'lifetime' });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe('This API key is not permitted for this action (allowManageKeys)');
    expect((await api(s, 'PUT', '/keys/api/shop', { genericSecret: 'x' })).status).toBe(403);
    expect((await api(s, 'GET', '/keys/api/products')).status).toBe(200);
    expect((await api(s, 'GET', '/keys/api/shop')).status).toBe(200);
    expect((await api(s, 'GET', '/keys/api/orders')).status).toBe(200);
    expect((await call(t().app, 'GET', '/api/v1/keys/api/products')).status).toBe(401);
  });
});

describe('shop secrets', () => {
  it('are write-only: read back as **** or null, sealed at rest, cleared by null, never in the audit log', async () => {
    const s = await seedService(t().ctx);
    expect((await api(s, 'GET', '/keys/api/shop')).body.data).toEqual({ genericSecret: null, sellixSecret: null, sellauthSecret: null });
    const put = await api(s, 'PUT', '/keys/api/shop', { genericSecret: 'generic-secret-1', sellixSecret: 'sellix-secret-1' });
    expect(put.status).toBe(200);
    expect(put.body.data).toEqual({ genericSecret: '****', sellixSecret: '****', sellauthSecret: null });
    const row = await t().ctx.db.selectFrom('shopSettings').selectAll().where('serviceId', '=', s.id).executeTakeFirstOrThrow();
    expect(row.genericSecretSealed).not.toContain('generic-secret-1');
    expect(t().ctx.sealer.open(row.genericSecretSealed!)).toBe('generic-secret-1');

    const cleared = await api(s, 'PUT', '/keys/api/shop', { sellixSecret: null, sellauthSecret: 'sellauth-secret-1' });
    expect(cleared.body.data).toEqual({ genericSecret: '****', sellixSecret: null, sellauthSecret: '****' });
    const audit = await auditOf(s.id, 'shop.update');
    expect(audit).toHaveLength(2);
    expect(JSON.stringify(audit)).not.toMatch(/secret-1/);
  });

  it.each([[{ genericSecret: '' }], [{ genericSecret: 5 }], [{ genericSecret: 'a\nb' }], [{ paypalSecret: 'x' }]])(
    'refuses %j with a 400',
    async (body) => {
      const s = await seedService(t().ctx);
      const res = await api(s, 'PUT', '/keys/api/shop', body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(typeof res.body.field).toBe('string');
    },
  );
});
