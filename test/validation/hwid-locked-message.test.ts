import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';

/** Contract §22: the KEY_HWID_LOCKED message the buyer sees names the service's self-serve reset page. */
const t = useTestApp();

describe('KEY_HWID_LOCKED names the reset page', () => {
  it('says where to reset, and that page is the service reset page', async () => {
    const s = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, s.serviceKey);
    const validate = (hwid: string) => call(t().app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${key}&hwid=${hwid}`);
    expect((await validate('pc-1')).body.data.valid).toBe(true);
    for (let i = 0; i < 2; i++) {
      // Twice: the second answer may come from the verdict cache.
      const locked = (await validate('pc-2')).body.data;
      expect(locked.code).toBe('KEY_HWID_LOCKED');
      expect(locked.message).toBe(`The key is bound to another HWID; reset it at http://keyward.test/reset/${s.identifier} to use it here`);
    }
    const page = await t().app.inject({ method: 'GET', url: `/reset/${s.identifier}` });
    expect(page.statusCode).toBe(200);
  });
});
