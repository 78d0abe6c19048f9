import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

const t = useTestApp();
const base = {
  status: 'active',
  last_reset: 0,
  key_days: -1,
  ban_reason: '',
  ban_expire: -1,
  identifier_type: 'hwid',
  discord_id: '',
  note: '',
  banned: 0,
  total_executions: 0,
  total_resets: 0,
  identifier: '',
  auth_expire: -1,
};

describe('two imports of the same new keys at once', () => {
  it('import them once: one answers 201, the other 409 naming them (never a 500), and nothing is doubled', async () => {
    const s = await seedService(t().ctx);
    const keys = Array.from({ length: 300 }, (_, i) => `race_${process.pid}_${i}_${Math.random().toString(36).slice(2, 8)}`);
    const body = { format: 'luarmor', data: keys.map((user_key) => ({ ...base, user_key })) };
    const answers = await Promise.all([1, 2].map(() => call(t().app, 'POST', '/api/v1/keys/api/keys/import', { key: s.serviceKey, body })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    const refused = answers.find((a) => a.status === 409)!;
    expect(refused.body.code).toBe('CONFLICT');
    expect(refused.body.duplicates).toHaveLength(300);
    const stored = await t().ctx.db.selectFrom('generatedKeys').select('key').where('serviceId', '=', s.id).execute();
    expect(stored).toHaveLength(300);
  });

  it('with onDuplicate=skip, import them once between them', async () => {
    const s = await seedService(t().ctx);
    const keys = Array.from({ length: 300 }, (_, i) => `skip_${process.pid}_${i}_${Math.random().toString(36).slice(2, 8)}`);
    const body = { format: 'luarmor', onDuplicate: 'skip', data: keys.map((user_key) => ({ ...base, user_key })) };
    const answers = await Promise.all([1, 2].map(() => call(t().app, 'POST', '/api/v1/keys/api/keys/import', { key: s.serviceKey, body })));
    expect(answers.map((a) => a.status)).toEqual([201, 201]);
    const imported = answers.map((a) => a.body.data.imported.generated as number);
    expect(imported.reduce((a, b) => a + b, 0)).toBe(300);
    expect(answers.map((a) => a.body.data.skipped as number).reduce((a, b) => a + b, 0)).toBe(300);
  });
});
