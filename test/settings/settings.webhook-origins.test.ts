import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

const t = useTestApp({ CHAT_WEBHOOK_ORIGINS: 'http://127.0.0.1:4010' });
const ID = '123456789012345678';

describe('PUT /api/v1/keys/api/settings with CHAT_WEBHOOK_ORIGINS=http://127.0.0.1:4010', () => {
  it('accepts a webhook on the listed origin and still masks its token', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'PUT', '/api/v1/keys/api/settings', {
      key: s.serviceKey,
      body: { webhookUrl: `http://127.0.0.1:4010/api/webhooks/${ID}/local-token` },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.webhookUrl).toBe(`http://127.0.0.1:4010/api/webhooks/${ID}/****`);
  });

  it('still accepts the platform itself', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'PUT', '/api/v1/keys/api/settings', {
      key: s.serviceKey,
      body: { webhookUrl: `https://discord.com/api/webhooks/${ID}/tok` },
    });
    expect(res.status).toBe(200);
  });

  it.each([
    ['another port', `http://127.0.0.1:4011/api/webhooks/${ID}/tok`],
    ['another scheme', `https://127.0.0.1:4010/api/webhooks/${ID}/tok`],
    ['another host', `http://localhost:4010/api/webhooks/${ID}/tok`],
    ['the listed origin with a bad path', `http://127.0.0.1:4010/hooks/${ID}/tok`],
    ['the listed origin with userinfo', `http://user@127.0.0.1:4010/api/webhooks/${ID}/tok`],
  ])('refuses %s', async (_label, webhookUrl) => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'PUT', '/api/v1/keys/api/settings', { key: s.serviceKey, body: { webhookUrl } });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('webhookUrl');
  });
});
