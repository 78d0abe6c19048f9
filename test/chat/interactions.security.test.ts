import { beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService, type SeededService } from '../helpers/seed.ts';
import { ChatSigner, command, sendInteraction } from './interactions.ts';

const t = useTestApp();
const GUILD = '223456789012345678';
const USER = '323456789012345678';
const signer = new ChatSigner();
const PING = { id: '1', application_id: '2', type: 1, token: 't', version: 1 };

let s: SeededService;
beforeEach(async () => {
  s = await seedService(t().ctx);
  const res = await call(t().app, 'PUT', '/api/v1/keys/api/settings', {
    key: s.serviceKey,
    body: { chatInteractionsPublicKey: signer.publicKeyHex },
  });
  expect(res.status).toBe(200);
  await call(t().app, 'POST', '/api/v1/keys/api/chat/connect', { key: s.serviceKey, body: { guildId: GUILD, guildName: 'Home' } });
});

const send = (payload: unknown, options: Partial<Parameters<typeof sendInteraction>[3]> = {}, service = s.identifier) =>
  sendInteraction(t().app, service, payload, { signer, at: t().clock.now, ...options });

describe('POST /api/v1/chat/interactions/:service signature checks', () => {
  it('answers a correctly signed PING with a PONG', async () => {
    const res = await send(PING);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ type: 1 });
  });

  it('accepts the service id as well as its identifier', async () => {
    expect((await send(PING, {}, s.id)).body).toEqual({ type: 1 });
  });

  it('refuses a request without a signature', async () => {
    const res = await send(PING, { omitSignature: true });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
  });

  it('refuses a request without a timestamp', async () => {
    expect((await send(PING, { omitTimestamp: true })).status).toBe(401);
  });

  it('refuses a signature made with another key', async () => {
    expect((await send(PING, { signer: new ChatSigner() })).status).toBe(401);
  });

  it('refuses a signed body that was altered on the way', async () => {
    const signed = JSON.stringify(PING);
    const res = await send(PING, { sentBody: signed.replace('"type":1', '"type":1 ') });
    expect(res.status).toBe(401);
  });

  it('refuses a signature over another timestamp', async () => {
    const ts = String(Math.floor(t().clock.now / 1000));
    const res = await send(PING, {
      signatureOverride: signer.signature(String(Number(ts) - 1), JSON.stringify(PING)),
      timestampOverride: ts,
    });
    expect(res.status).toBe(401);
  });

  it.each([
    ['empty', ''],
    ['not hex', 'z'.repeat(128)],
    ['too short', 'ab'.repeat(63)],
    ['too long', 'ab'.repeat(65)],
    ['all zeros', '0'.repeat(128)],
  ])('refuses a malformed signature (%s)', async (_label, signature) => {
    expect((await send(PING, { signatureOverride: signature })).status).toBe(401);
  });

  it('refuses a replay of a request signed more than five minutes ago', async () => {
    const res = await send(PING, { at: t().clock.now - 5 * 60_000 - 1_000 });
    expect(res.status).toBe(401);
    expect((await send(PING, { at: t().clock.now - 60_000 })).status).toBe(200);
  });

  it('refuses a non-numeric timestamp', async () => {
    const ts = 'now';
    expect((await send(PING, { timestampOverride: ts, signatureOverride: signer.signature(ts, JSON.stringify(PING)) })).status).toBe(401);
  });

  it('refuses everything while the service has no public key set', async () => {
    await call(t().app, 'PUT', '/api/v1/keys/api/settings', { key: s.serviceKey, body: { chatInteractionsPublicKey: null } });
    expect((await send(PING)).status).toBe(401);
  });

  it('refuses a correctly signed request when the service holds another key, and serves it again after the key changes', async () => {
    const other = new ChatSigner();
    await call(t().app, 'PUT', '/api/v1/keys/api/settings', { key: s.serviceKey, body: { chatInteractionsPublicKey: other.publicKeyHex } });
    expect((await send(PING)).status).toBe(401);
    expect((await send(PING, { signer: other })).status).toBe(200);
  });

  it("does not accept one service's signatures for another service", async () => {
    const stranger = await seedService(t().ctx);
    await call(t().app, 'PUT', '/api/v1/keys/api/settings', {
      key: stranger.serviceKey,
      body: { chatInteractionsPublicKey: new ChatSigner().publicKeyHex },
    });
    expect((await send(PING, {}, stranger.identifier)).status).toBe(401);
  });

  it('answers 404 for an unknown service', async () => {
    expect((await send(PING, {}, 'no-such-service')).status).toBe(404);
  });

  it('checks the signature before reading the body: an unsigned broken body is a 401, a signed one a 400', async () => {
    expect((await send('{"type":', { signatureOverride: '0'.repeat(128) })).status).toBe(401);
    const signedBroken = await send('{"type":');
    expect(signedBroken.status).toBe(400);
    expect(signedBroken.body.code).toBe('VALIDATION_ERROR');
    expect((await send('[1,2]')).status).toBe(400);
  });

  it('refuses a signed command from a server that is not the bound one, without acting', async () => {
    const [key] = (await call(t().app, 'POST', '/api/v1/keys/api/generate', { key: s.serviceKey, body: { expirationType: 'lifetime' } }))
      .body.data.keys;
    const res = await send(command('999999999999999999', USER, 'redeem', [{ name: 'key', type: 3, value: key.key }]));
    expect(res.status).toBe(200);
    expect(res.body.type).toBe(4);
    expect(res.body.data.flags).toBe(64);
    expect(res.body.data.content).toMatch(/not connected/);
    const row = await t().ctx.db.selectFrom('generatedKeys').select('chatId').where('key', '=', key.key).executeTakeFirstOrThrow();
    expect(row.chatId).toBeNull();
  });

  it('refuses a command sent in a direct message (no server)', async () => {
    const res = await send(command(undefined, USER, 'script'));
    expect(res.body.data.content).toMatch(/not connected/);
  });

  it('refuses commands once the server binding is removed', async () => {
    await call(t().app, 'POST', '/api/v1/keys/api/chat/disconnect', { key: s.serviceKey });
    const res = await send(command(GUILD, USER, 'script'));
    expect(res.body.data.content).toMatch(/not connected/);
  });
});
