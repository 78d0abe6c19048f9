import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { SIGNIN_ENV } from '../signin/helpers.ts';
import { checkpoint, configure, start } from '../key-system/helpers.ts';
import { uploadScript } from '../scripts/script-helpers.ts';
import { buyerSnippet } from '../../web/src/lib/snippet.ts';

// Contract §15: what a buyer is given carries `script_key = "<key>"` above the loadstring, or the loader
// answers KEY_INCORRECT.
const t = useTestApp(SIGNIN_ENV);
const loadstringOf = (id: string) => `loadstring(game:HttpGet("http://keyward.test/api/v1/vss/loader/${id}"))()`;

describe('the buyer-ready snippet', () => {
  it('the dashboard copies the script_key line above the loadstring, KEY_HERE or a chosen key', () => {
    const loadstring = loadstringOf('abc');
    expect(buyerSnippet(loadstring)).toBe(`script_key = "KEY_HERE"\n${loadstring}`);
    expect(buyerSnippet(loadstring, 'Abc_123-x')).toBe(`script_key = "Abc_123-x"\n${loadstring}`);
    // A key is [A-Za-z0-9_-]: nothing else can break out of the Lua string.
    expect(buyerSnippet(loadstring, '"); os.exit() --')).toBe(`script_key = "osexit--"\n${loadstring}`);
  });

  it('by-chat with includeLoadstring=1 answers each visible script with the user’s valid key in its script_key line', async () => {
    const s = await seedService(t().ctx);
    const shown = await uploadScript(t().app, s, { name: 'game', code: 'a()' });
    await uploadScript(t().app, s, { name: 'hidden', code: 'b()', visible: false });
    const chatId = '223456789012345678';
    const [banned] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 1, chatId });
    const [valid] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', chatId });
    const ban = await call(t().app, 'PUT', '/api/v1/keys/api/generated-key', {
      key: s.serviceKey,
      body: { key: banned, status: 'banned' },
    });
    expect(ban.status).toBe(200);
    const res = await call(t().app, 'GET', `/api/v1/keys/api/key/by-chat?chatId=${chatId}&includeLoadstring=1`, { key: s.serviceKey });
    expect(res.status).toBe(200);
    expect(res.body.data.snippets).toEqual([
      { scriptId: shown.id, name: 'game', snippet: `script_key = "${valid}"\n${loadstringOf(shown.id)}` },
    ]);
    const without = await call(t().app, 'GET', `/api/v1/keys/api/key/by-chat?chatId=${chatId}`, { key: s.serviceKey });
    expect(without.body.data).not.toHaveProperty('snippets');
  });

  it('by-chat gives no snippet when none of the user’s keys is valid now', async () => {
    const s = await seedService(t().ctx);
    await uploadScript(t().app, s, { name: 'game', code: 'a()' });
    const chatId = '323456789012345678';
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', chatId });
    await call(t().app, 'PUT', '/api/v1/keys/api/generated-key', { key: s.serviceKey, body: { key, status: 'paused' } });
    const res = await call(t().app, 'GET', `/api/v1/keys/api/key/by-chat?chatId=${chatId}&includeLoadstring=1`, { key: s.serviceKey });
    expect(res.status).toBe(200);
    expect(res.body.data).not.toHaveProperty('snippets');
  });

  it('the get-key page says where the key goes, before and after it is earned', async () => {
    const s = await seedService(t().ctx);
    await configure(t().app, s, { enabled: true, checkpoints: 1, minSecondsPerCheckpoint: 0 });
    const first = await t().app.inject({ method: 'GET', url: `/key/${s.identifier}` });
    expect(first.body).toContain('script_key = &quot;KEY_HERE&quot;');
    const { cookie, id } = await start(t().app, s);
    const done = await checkpoint(t().app, s, id, cookie);
    const key = done.body.data.key.key as string;
    const finished = await t().app.inject({ method: 'GET', url: `/key/${s.identifier}`, headers: { cookie } });
    expect(finished.body).toContain(`<code class="key" id="snippet">script_key = &quot;${key}&quot;</code>`);
    expect(finished.body).toContain('Copy line');
  });
});
