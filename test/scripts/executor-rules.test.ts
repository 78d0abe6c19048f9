import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { fetchScript, SCRIPTS, serviceExecutions, uploadScript } from './script-helpers.ts';

/** A script's executor rule (contract §29) through /vss/api, and what a run it excludes gets. */
const t = useTestApp();

describe('scripts: executors', () => {
  it('takes { allow }, { deny } or null on upload and PUT, and every record carries it', async () => {
    const s = await seedService(t().ctx);
    const plain = await uploadScript(t().app, s, { name: 'plain', code: 'x()' });
    expect((plain as Record<string, unknown>).executors).toBeNull();
    const allowed = await uploadScript(t().app, s, { name: 'allowed', code: 'x()', executors: { allow: [' Wave ', 'Synapse Z'] } });
    expect((allowed as Record<string, unknown>).executors).toEqual({ allow: ['Wave', 'Synapse Z'] });
    const put = await call(t().app, 'PUT', `${SCRIPTS}/allowed`, { key: s.serviceKey, body: { executors: { deny: ['Xeno'] } } });
    expect(put.body.data.executors).toEqual({ deny: ['Xeno'] });
    const listed = await call(t().app, 'GET', SCRIPTS, { key: s.serviceKey });
    expect(listed.body.data.items.find((i: { name: string }) => i.name === 'allowed').executors).toEqual({ deny: ['Xeno'] });
    const cleared = await call(t().app, 'PUT', `${SCRIPTS}/allowed`, { key: s.serviceKey, body: { executors: null } });
    expect(cleared.body.data.executors).toBeNull();
    const audit = await call(t().app, 'GET', '/api/v1/keys/api/audit?limit=5', { key: s.serviceKey });
    expect(JSON.stringify(audit.body.data.items)).toContain('"executors":{"deny":["Xeno"]}');
  });

  it('answers 400 naming executors for a malformed rule', async () => {
    const s = await seedService(t().ctx);
    await uploadScript(t().app, s, { name: 'game', code: 'x()' });
    const bad = [
      { allow: [] },
      { allow: ['Wave'], deny: ['Xeno'] },
      { only: ['Wave'] },
      { allow: Array.from({ length: 51 }, (_, i) => `E${i}`) },
      { allow: ['x'.repeat(65)] },
      { allow: ['   '] },
      { deny: ['Wave\n'] },
      ['Wave'],
      'Wave',
    ];
    for (const executors of bad) {
      const res = await call(t().app, 'PUT', `${SCRIPTS}/game`, { key: s.serviceKey, body: { executors } });
      expect(res.status, JSON.stringify(executors)).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'executors' });
    }
    const fifty = { allow: Array.from({ length: 50 }, (_, i) => `E${i}`) };
    expect((await call(t().app, 'PUT', `${SCRIPTS}/game`, { key: s.serviceKey, body: { executors: fifty } })).status).toBe(200);
  });

  it('matches names case-insensitively on the part before any version', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'game', code: 'print("ok")', executors: { allow: ['wave', 'Synapse Z'] } });
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', noHwidValidation: true });
    for (const executor of ['Wave', 'WAVE 2.1.0', 'wave v3', 'Wave/1.0', 'synapse z 1.2']) {
      const res = await fetchScript(t().app, script.id, { key: key!, hwid: 'h', executor });
      expect(res.body, executor).toBe('print("ok")');
    }
    for (const executor of ['Waves', 'Synapse', 'Solara 2']) {
      const res = await fetchScript(t().app, script.id, { key: key!, hwid: 'h', executor });
      expect(res.body).toContain(`Keyward: EXECUTOR_UNSUPPORTED: This script does not support ${executor}. It runs on: wave, Synapse Z.`);
    }
    // A run that names no executor fails an allow rule (unless it lists "unknown"), and passes a deny rule.
    expect((await fetchScript(t().app, script.id, { key: key!, hwid: 'h' })).body).toContain(
      'This script does not support an executor that does not name itself. It runs on: wave, Synapse Z.',
    );
    await call(t().app, 'PUT', `${SCRIPTS}/game`, { key: s.serviceKey, body: { executors: { deny: ['Xeno'] } } });
    expect((await fetchScript(t().app, script.id, { key: key!, hwid: 'h' })).body).toBe('print("ok")');
    expect((await fetchScript(t().app, script.id, { key: key!, hwid: 'h', executor: 'xeno 1.0.4' })).body).toContain(
      'Keyward: EXECUTOR_UNSUPPORTED: This script does not support xeno 1.0.4.", 0)',
    );
  });

  it('refuses before the key: no redemption, no HWID, no execution, no session', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'game', code: 'x()', executors: { deny: ['Xeno'] } });
    const [generated] = await generateKeys(t().app, s.serviceKey);
    const [active] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime' });
    const res = await fetchScript(t().app, script.id, { key: generated!, hwid: 'h1', executor: 'Xeno' });
    expect(res.body).toContain('EXECUTOR_UNSUPPORTED');
    const binding = await call(t().app, 'GET', `/api/v1/keys/api/key/binding?key=${generated}&type=generated`, { key: s.serviceKey });
    expect(binding.status).toBe(200);
    const open = await call(t().app, 'POST', `/api/v1/public/sessions/${s.id}`, {
      body: { key: active, hwid: 'h2', scriptId: script.id, executor: 'Xeno' },
    });
    expect(open.status).toBe(403);
    expect(open.body).toMatchObject({ code: 'KEY_REFUSED', reason: 'EXECUTOR_UNSUPPORTED', error: 'This script does not support Xeno.' });
    const check = await call(t().app, 'GET', `/api/v1/lua/check/${script.id}?key=${active}&hwid=h3&executor=Xeno`);
    expect(check.body.data).toMatchObject({ valid: false, code: 'EXECUTOR_UNSUPPORTED' });
    const key = await call(t().app, 'GET', `/api/v1/keys/api/generated-key?key=${active}`, { key: s.serviceKey });
    expect(key.status).toBe(200); // still generated: neither the open nor the check redeemed it
    expect(await serviceExecutions(t().app, s)).toBe(0);
    await t().ctx.analytics.flush(t().ctx.db);
    const seen = await call(t().app, 'GET', '/api/v1/keys/api/analytics/executors', { key: s.serviceKey });
    expect(seen.body.data.items).toEqual([expect.objectContaining({ executor: 'Xeno', refused: { EXECUTOR_UNSUPPORTED: 3 } })]);
  });
});
