import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

// Contract §12.2: the same order retried at once on several instances makes exactly one set of keys, and every
// retry answers that set. Two app instances share this file's database (on PostgreSQL: one server, two pools).
const t = useTestApp();
let second: App;
beforeAll(async () => {
  second = await anotherInstance(t());
});
afterAll(async () => {
  await second?.close();
});

const SECRET = 'race-secret';

describe('concurrent retries of one order', () => {
  it('20 retries across two instances make one set of keys and all answer it', async () => {
    const s = await seedService(t().ctx);
    expect((await call(t().app, 'PUT', '/api/v1/keys/api/shop', { key: s.serviceKey, body: { genericSecret: SECRET } })).status).toBe(200);
    const product = await call(t().app, 'POST', '/api/v1/keys/api/products', {
      key: s.serviceKey,
      body: { name: 'Race', expirationType: 'lifetime' },
    });
    const body = JSON.stringify({ orderId: 'race-order', quantity: 5 });
    const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? t().app : second).inject({
          method: 'POST',
          url: `/api/v1/public/shop/generic/${product.body.data.id}`,
          payload: body,
          headers: { 'content-type': 'application/json', 'x-keyward-signature': signature },
        }),
      ),
    );
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
    const sets = new Set(answers.map((a) => a.body));
    expect(sets.size).toBe(1);
    const keys = [...sets][0]!.split('\n');
    expect(keys).toHaveLength(5);
    const stored = await t().ctx.db.selectFrom('generatedKeys').select('key').where('serviceId', '=', s.id).execute();
    expect(stored.map((r) => r.key).sort()).toEqual([...keys].sort());
    const orders = await t().ctx.db.selectFrom('shopOrders').selectAll().where('serviceId', '=', s.id).execute();
    expect(orders).toHaveLength(1);
    expect(JSON.parse(orders[0]!.keys)).toEqual(keys);
    const audit = await t()
      .ctx.db.selectFrom('auditLog')
      .select('id')
      .where('serviceId', '=', s.id)
      .where('action', '=', 'order.delivered')
      .execute();
    expect(audit).toHaveLength(1);
  });
});
