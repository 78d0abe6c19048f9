// Contract §17, §27: a reseller sees and touches only the keys it created, through every door. This walks every route
// the app registers that returns or acts on a key (its declared action is a keys.* one, or it is under /luarmor) and
// asks each one, as a reseller, about keys the owner and a manager made: each must answer exactly as it answers for a
// key that does not exist, and change nothing. A route added later that this table does not name fails the first test.
import { beforeAll, describe, expect, it } from 'vitest';
import { declaredRoutesOf } from '../../src/plugins/auth.ts';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededAccount, type SeededService } from '../helpers/seed.ts';
import { redeem } from '../helpers/records.ts';
import { openSession } from '../sessions/session-helpers.ts';
import { LuarmorClient, type LuarmorAnswer } from '../luarmor/luarmor-client.ts';
import { addMember, asMember } from '../teams/team-helpers.ts';

const t = useTestApp();

type Answer = { status: number; body: unknown };
interface World {
  s: SeededService;
  reseller: SeededAccount;
  /** Keys of the owner and of a manager, redeemed and bound, each with a note and a Discord user. */
  foreignActive: { key: string; hwid: string; note: string; chatId: string }[];
  /** An unredeemed key of the owner. */
  foreignGenerated: string;
  ownKey: string;
}
let w: World;

/** A key of the same shape that exists nowhere (the foreign key reversed). */
const unknownLike = (key: string) => key.split('').reverse().join('');

/** The answer with the asked key (and the request id) taken out, to compare a foreign key's answer with an unknown's. */
function normalized(answer: Answer, key: string) {
  const text = JSON.stringify(answer.body ?? null)
    .replaceAll(key, '<key>')
    .replace(/"requestId":"[^"]*"/g, '"requestId":"<id>"');
  return { status: answer.status, body: JSON.parse(text) as unknown };
}

/** Asks about the foreign key and about an unknown one alike: the answers must be the same. */
async function answersAsUnknown(send: (key: string) => Promise<Answer>, foreign: string, unknown = unknownLike(foreign)) {
  const asked = normalized(await send(foreign), foreign);
  const missing = normalized(await send(unknown), unknown);
  expect(asked, `${foreign} answered unlike an unknown key`).toEqual(missing);
}

const reseller = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown) =>
  asMember(t().app, w.reseller, w.s, method, path, body);
const luarmor = () => new LuarmorClient(() => t().app, w.reseller.accountKey);
const luarmorAnswer = (a: LuarmorAnswer): Answer => ({ status: a.status, body: a.body });
const project = () => w.s.id;

/** What the owner sees of its key afterwards: nothing a reseller's call tried may have changed it. */
async function ownerView(key: string) {
  const res = await call(t().app, 'GET', `/api/v1/keys/api/key?key=${key}`, { key: w.s.serviceKey });
  expect(res.status).toBe(200);
  const row = res.body.data.keys[0];
  return { status: row.status, note: row.note, chatId: row.chatId, hwids: row.hwids, expiresAt: row.expiresAt };
}

async function forEachForeign(probe: (key: string) => Promise<Answer>) {
  for (const f of w.foreignActive) {
    const before = await ownerView(f.key);
    await answersAsUnknown(probe, f.key);
    expect(await ownerView(f.key)).toEqual(before);
  }
}

const forbidden = async (res: Answer) => {
  expect(res.status, JSON.stringify(res.body)).toBe(403);
  expect(JSON.stringify(res.body)).toContain('Your role on this service (reseller) does not allow this.');
};

type Probe = (() => Promise<void>) | { exempt: string };

/** Every key route, by method and URL as registered: how a reseller is kept to its own keys there. */
const ROUTES: Record<string, Probe> = {
  'GET /api/v1/keys/api/reseller': { exempt: "the reseller's own quota and counts: no key of anyone's" },
  'GET /api/v1/keys/api/scripts': { exempt: "the service's scripts: no key" },
  'GET /api/v1/keys/api/service/info': { exempt: "the service's name and settings: no key" },
  'POST /api/v1/keys/api/generate': { exempt: 'makes new keys, which are its own' },
  'GET /luarmor/v3/keys/:api_key/details': { exempt: 'the projects and their scripts: no key' },
  // The full list (streamed, contract §23) and each of its filters: the reseller's own key only.
  'GET /luarmor/v3/projects/:project_id/users': async () => {
    const all = await luarmor().getUsers(project());
    expect(all.status).toBe(200);
    expect((all.body.users as { user_key: string }[]).map((u) => u.user_key)).toEqual([w.ownKey]);
    for (const f of w.foreignActive) {
      const queries: Record<string, string>[] = [{ user_key: f.key }, { identifier: f.hwid }, { discord_id: f.chatId }, { search: f.note }];
      for (const query of queries) {
        const found = await luarmor().getUsers(project(), query);
        expect(found.status, JSON.stringify(query)).toBe(200);
        expect(found.body.users, JSON.stringify(query)).toEqual([]);
      }
      for (const search of [f.key.slice(0, 1), f.note.slice(0, 2)]) {
        const found = await luarmor().getUsers(project(), { search });
        expect(found.status, search).toBe(200);
        const keys = (found.body.users as { user_key: string }[]).map((u) => u.user_key);
        expect(
          keys.filter((k) => k !== w.ownKey),
          `search=${search}`,
        ).toEqual([]);
      }
    }
  },
  // Routes the reseller's role may not use at all.
  'GET /api/v1/keys/api/analytics': async () => forbidden(await reseller('GET', '/keys/api/analytics')),
  'GET /api/v1/keys/api/audit': async () => forbidden(await reseller('GET', '/keys/api/audit')),
  'GET /api/v1/keys/api/analytics/executors': async () => forbidden(await reseller('GET', '/keys/api/analytics/executors')),
  'POST /luarmor/v3/projects/:project_id/users/import': async () =>
    forbidden(
      luarmorAnswer(await luarmor().request('POST', `/v3/projects/${project()}/users/import`, { users: [{ user_key: 'x'.repeat(32) }] })),
    ),
  'GET /api/v1/keys/api/execution': async () => forbidden(await reseller('GET', '/keys/api/execution')),
  'GET /api/v1/keys/api/service/status': async () => forbidden(await reseller('GET', '/keys/api/service/status')),
  'GET /api/v1/keys/api/keys/export': async () => forbidden(await reseller('GET', '/keys/api/keys/export')),
  'POST /api/v1/keys/api/compensate': async () => forbidden(await reseller('POST', '/keys/api/compensate', { days: 1 })),
  'POST /api/v1/keys/api/key/extend-expiration': async () =>
    forbidden(await reseller('POST', '/keys/api/key/extend-expiration', { key: w.foreignActive[0]!.key, days: 1 })),
  'POST /api/v1/keys/api/keys/import': async () => forbidden(await reseller('POST', '/keys/api/keys/import', {})),
  'POST /luarmor/v3/projects/:project_id/scripts': async () =>
    forbidden(luarmorAnswer(await luarmor().createScript(project(), { name: 'x', script: 'print(1)' }))),
  'PUT /luarmor/v3/projects/:project_id/scripts/:script_id': async () =>
    forbidden(luarmorAnswer(await luarmor().updateScript(project(), 'no-such-script', { script: 'print(1)' }))),
  // Single-key reads and changes: a foreign key answers as an unknown one and stays as it was.
  'GET /api/v1/keys/api/key': async () => {
    await forEachForeign((key) => reseller('GET', `/keys/api/key?key=${key}`));
    for (const f of w.foreignActive) {
      await answersAsUnknown((hwid) => reseller('GET', `/keys/api/key?hwid=${hwid}`), f.hwid);
      await answersAsUnknown((note) => reseller('GET', `/keys/api/key?note=${note}`), f.note);
    }
  },
  'GET /api/v1/keys/api/generated-key': async () => {
    await answersAsUnknown((key) => reseller('GET', `/keys/api/generated-key?key=${key}`), w.foreignGenerated);
    await answersAsUnknown((note) => reseller('GET', `/keys/api/generated-key?note=${note}`), 'owner-gen-note', 'no-such-note');
  },
  'GET /api/v1/keys/api/key/binding': async () => {
    await forEachForeign((key) => reseller('GET', `/keys/api/key/binding?key=${key}&type=active`));
    await answersAsUnknown((key) => reseller('GET', `/keys/api/key/binding?key=${key}&type=generated`), w.foreignGenerated);
  },
  'GET /api/v1/keys/api/key/by-chat': async () => {
    for (const f of w.foreignActive) {
      await answersAsUnknownList((chatId) => reseller('GET', `/keys/api/key/by-chat?chatId=${chatId}`), f.chatId, '99999999999999999');
    }
  },
  'GET /api/v1/keys/api/keys': async () => {
    const listed = await reseller('GET', '/keys/api/keys?limit=100');
    expect(listed.status).toBe(200);
    expect(listed.body.data.items.map((k: { key: string }) => k.key)).toEqual([w.ownKey]);
    for (const f of w.foreignActive) {
      for (const search of [f.key, f.hwid, f.note, f.chatId]) {
        expect((await reseller('GET', `/keys/api/keys?search=${search}`)).body.data.items).toEqual([]);
      }
    }
    expect((await reseller('GET', `/keys/api/keys?createdBy=${w.s.account.id}`)).body.data.items).toEqual([]);
    // A 1–2 character term takes another path (search_text, and on SQLite its own index): the scope still decides
    // the page and its count. Each term finds a foreign key for the owner, so an answer without scope would show it.
    const shortTerms = new Set(w.foreignActive.flatMap((f) => [f.key.slice(0, 1), f.key.slice(-2), f.note.slice(0, 2), f.hwid.slice(-2)]));
    for (const search of shortTerms) {
      const q = encodeURIComponent(search);
      const owners = await call(t().app, 'GET', `/api/v1/keys/api/keys?search=${q}&limit=100`, { key: w.s.serviceKey });
      const ownerKeys = owners.body.data.items.map((k: { key: string }) => k.key);
      expect(
        ownerKeys.some((k: string) => k !== w.ownKey),
        `the owner finds no foreign key by ${search}`,
      ).toBe(true);
      for (const type of ['all', 'active', 'generated']) {
        const found = await reseller('GET', `/keys/api/keys?type=${type}&search=${q}&limit=100`);
        expect(found.status).toBe(200);
        const keys = found.body.data.items.map((k: { key: string }) => k.key);
        expect(
          keys.filter((k: string) => k !== w.ownKey),
          `${type} search=${search}`,
        ).toEqual([]);
        expect(found.body.data.total, `${type} search=${search}`).toBe(keys.length);
      }
    }
  },
  'GET /api/v1/keys/api/sessions': async () => {
    const listed = await reseller('GET', '/keys/api/sessions');
    expect(listed.status).toBe(200);
    expect(listed.body.data.items.map((s: { key: string }) => s.key)).toEqual([w.ownKey]);
    for (const f of w.foreignActive) {
      await answersAsUnknownList((key) => reseller('GET', `/keys/api/sessions?key=${key}`), f.key, unknownLike(f.key));
    }
  },
  'PUT /api/v1/keys/api/key': async () => {
    await forEachForeign((key) => reseller('PUT', '/keys/api/key', { key, note: 'taken' }));
    await forEachForeign((key) => reseller('PUT', '/keys/api/key', { key, status: 'banned' }));
  },
  'PUT /api/v1/keys/api/generated-key': async () =>
    answersAsUnknown((key) => reseller('PUT', '/keys/api/generated-key', { key, note: 'taken' }), w.foreignGenerated),
  'DELETE /api/v1/keys/api/key': async () => forEachForeign((key) => reseller('DELETE', `/keys/api/key?key=${key}`)),
  'DELETE /api/v1/keys/api/generated-key': async () =>
    answersAsUnknown((key) => reseller('DELETE', `/keys/api/generated-key?key=${key}`), w.foreignGenerated),
  'POST /api/v1/keys/reset-hwid': async () => forEachForeign((key) => reseller('POST', '/keys/reset-hwid', { key })),
  'POST /api/v1/keys/api/keys/bulk': async () => {
    for (const action of ['setNote', 'ban', 'resetHwid', 'delete'] as const) {
      await forEachForeignBulk(action);
    }
  },
  'GET /luarmor/v3/keys/:api_key/stats': async () => {
    const stats = await luarmor().keyStats();
    expect(stats.status).toBe(200);
    // Its own key only; and no analytics of the service (§17).
    expect(stats.body.stats.users).toBe(1);
    expect(stats.body.execution_data.executions.every((n: number) => n === 0)).toBe(true);
  },
  'PATCH /luarmor/v3/projects/:project_id/users': async () => {
    await forEachForeign(async (key) => luarmorAnswer(await luarmor().updateUser(project(), { user_key: key, note: 'taken' })));
    await forEachForeign(async (key) =>
      luarmorAnswer(await luarmor().updateUser(project(), { user_key: key, auth_expire: Math.floor(t().clock.now / 1000) + 60 })),
    );
  },
  'DELETE /luarmor/v3/projects/:project_id/users': async () =>
    forEachForeign(async (key) => luarmorAnswer(await luarmor().deleteUser(project(), key))),
  'DELETE /luarmor/v3/projects/:project_id/users/:user_key': async () =>
    forEachForeign(async (key) => luarmorAnswer(await luarmor().request('DELETE', `/v3/projects/${project()}/users/${key}`))),
  'POST /luarmor/v3/projects/:project_id/users/resethwid': async () => {
    await forEachForeign(async (key) => luarmorAnswer(await luarmor().resetHwid(project(), key)));
    await forEachForeign(async (key) => luarmorAnswer(await luarmor().resetHwid(project(), key, true)));
  },
  'POST /luarmor/v3/projects/:project_id/users/linkdiscord': async () => {
    await forEachForeign(async (key) => luarmorAnswer(await luarmor().linkDiscord(project(), key, '123456789012345678')));
    await forEachForeign(async (key) => luarmorAnswer(await luarmor().linkDiscord(project(), key, '123456789012345678', true)));
  },
  'POST /luarmor/v3/projects/:project_id/users/blacklist': async () =>
    forEachForeign(async (key) => luarmorAnswer(await luarmor().blacklist(project(), key, { ban_reason: 'taken' }))),
  'POST /luarmor/v3/projects/:project_id/users': async () => {
    // Another's HWID or Discord user is not "already taken" for a reseller: it learns nothing of keys it cannot see.
    const f = w.foreignActive[0]!;
    const made = await luarmor().createUser(project(), { identifier: f.hwid, discord_id: f.chatId });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    await call(t().app, 'DELETE', `/api/v1/keys/api/key?key=${made.body.user_key}`, { key: w.s.serviceKey });
  },
};

/** A list answer for a foreign value and for an unknown one: the same (empty) list. */
async function answersAsUnknownList(send: (value: string) => Promise<Answer>, foreign: string, unknown: string) {
  const asked = normalized(await send(foreign), foreign);
  const missing = normalized(await send(unknown), unknown);
  expect(asked, `${foreign} answered unlike an unknown one`).toEqual(missing);
}

/** A bulk action answers 200 with the keys it did not find: a foreign key is listed there as an unknown one is. */
async function forEachForeignBulk(action: string) {
  await forEachForeign(async (key) => {
    const res = await reseller('POST', '/keys/api/keys/bulk', { action, keys: [key], ...(action === 'setNote' && { note: 'x' }) });
    if (res.status === 200) expect(res.body.data.updated).toBe(0);
    return res;
  });
}

const routeName = (r: { method: string; url: string }) => `${r.method} ${r.url}`;
const keyRoutes = () =>
  declaredRoutesOf(t().app).filter((r) => r.method !== 'HEAD' && (r.action?.startsWith('keys.') || r.auth === 'luarmor'));

beforeAll(async () => {
  const { app, ctx } = t();
  const s = await seedService(ctx);
  const manager = await addMember(app, ctx, s, 'manager');
  const member = await addMember(app, ctx, s, 'reseller', { keysLeft: 10, allowLifetime: true });
  const foreignActive = [];
  const makers: [string, (body: object) => Promise<string>][] = [
    ['owner', async (body) => (await generateKeys(app, s.serviceKey, body as Record<string, unknown>))[0]!],
    [
      'manager',
      async (body) => {
        const res = await asMember(app, manager, s, 'POST', '/keys/api/generate', body);
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        return res.body.data.keys[0].key as string;
      },
    ],
  ];
  for (const [i, [who, make]] of makers.entries()) {
    const chatId = `11111111111111111${i}`;
    const note = `${who}-note`;
    const key = await make({ expirationType: 'lifetime', note, chatId });
    await redeem(app, s.id, key, `${who}-pc`);
    await openSession(app, s, { key, hwid: `${who}-pc` });
    foreignActive.push({ key, hwid: `${who}-pc`, note, chatId });
  }
  // A banned foreign key: a reset of it must not say "User is banned." to a reseller.
  const banned = await call(app, 'PUT', '/api/v1/keys/api/key', {
    key: s.serviceKey,
    body: { key: foreignActive[1]!.key, status: 'banned', banReason: 'owner ban' },
  });
  expect(banned.status).toBe(200);
  const [foreignGenerated] = await generateKeys(app, s.serviceKey, { expirationType: 'lifetime', note: 'owner-gen-note' });
  const own = await asMember(app, member, s, 'POST', '/keys/api/generate', { expirationType: 'lifetime' });
  expect(own.status, JSON.stringify(own.body)).toBe(201);
  const ownKey = own.body.data.keys[0].key as string;
  await redeem(app, s.id, ownKey, 'reseller-pc');
  await openSession(app, s, { key: ownKey, hwid: 'reseller-pc' });
  w = { s, reseller: member, foreignActive, foreignGenerated: foreignGenerated!, ownKey };
});

describe("a reseller's scope on every key route (contract §17, §27)", () => {
  it('names every registered route that returns or acts on a key', () => {
    const missing = keyRoutes()
      .map(routeName)
      .filter((name) => !(name in ROUTES));
    expect(missing, 'key routes this table does not cover: add a probe for each').toEqual([]);
    const gone = Object.keys(ROUTES).filter((name) => !keyRoutes().some((r) => routeName(r) === name));
    expect(gone, 'routes in the table that no longer exist').toEqual([]);
  });

  for (const [name, probe] of Object.entries(ROUTES)) {
    if (typeof probe !== 'function') continue;
    it(`keeps a reseller to its own keys on ${name}`, probe);
  }

  it("still serves the reseller's own key on the same doors", async () => {
    expect((await reseller('GET', `/keys/api/key?key=${w.ownKey}`)).status).toBe(200);
    expect((await luarmor().updateUser(project(), { user_key: w.ownKey, note: 'mine' })).status).toBe(200);
    expect((await reseller('GET', `/keys/api/sessions?key=${w.ownKey}`)).body.data.items).toHaveLength(1);
  });
});
