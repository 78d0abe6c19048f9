import type { Db } from '../../db/database.ts';
import { notFound } from '../../errors.ts';
import { resellerScope, type Actor } from '../audit/actor.ts';
import * as repo from './keys.repository.ts';

/*
 * Contract §17 and §27: a reseller sees and touches only the keys it created, through every door (the dashboard and
 * Keyward's API, /luarmor, sessions, Discord). This file is the one place a key is read for an actor: every lookup here
 * takes the actor and applies its scope, so a door that reads keys for someone cannot forget it. A key outside the
 * scope reads exactly as a missing one. Reads that act for no one (validation, the loader, the session heartbeat) use
 * the repository's own lookups through keys.service.ts.
 */

/** The account whose keys the actor is limited to; null when it sees every key of the service. */
export const keyScopeOf = (actor: Actor): string | null => resellerScope(actor);

const inScope = (scope: string | null, row: { createdBy: string | null }) => scope === null || row.createdBy === scope;

export type ScopedKey = { type: 'active'; row: repo.ActiveKeyWithHwids } | { type: 'generated'; row: repo.GeneratedKeyRow };

/** One key (active if redeemed, else generated) as the actor may see it; undefined when missing or outside its scope. */
export async function keyForActor(db: Db, serviceId: string, key: string, actor: Actor): Promise<ScopedKey | undefined> {
  const scope = keyScopeOf(actor);
  const active = await repo.findActiveKey(db, serviceId, key);
  if (active) return inScope(scope, active) ? { type: 'active', row: (await repo.withHwids(db, [active]))[0]! } : undefined;
  const generated = await repo.findGeneratedKey(db, serviceId, key);
  return generated && inScope(scope, generated) ? { type: 'generated', row: generated } : undefined;
}

/**
 * 404 unless the key exists within the actor's scope. Every single-key change of the keys module calls it first, so
 * every route and module calling them gets the scoping. A key's creator never changes, so checking before the change
 * cannot race with it.
 */
export async function assertOwnKey(db: Db, serviceId: string, key: string, actor: Actor, what = 'Key') {
  const scope = keyScopeOf(actor);
  if (scope === null) return;
  const creator = await repo.keyCreator(db, serviceId, key);
  if (creator?.createdBy !== scope) throw notFound(what);
}

/** The keys linked to a Discord user (chat id) that the actor may see. */
export async function keysByChatForActor(db: Db, serviceId: string, chatId: string, actor: Actor) {
  const scope = keyScopeOf(actor);
  const [active, generated] = await Promise.all([
    repo.activeKeysByChat(db, serviceId, chatId),
    repo.generatedKeysByChat(db, serviceId, chatId),
  ]);
  return { active: active.filter((row) => inScope(scope, row)), generated: generated.filter((row) => inScope(scope, row)) };
}

/** The active keys bound to an HWID that the actor may see (at most MAX_LOOKUP_ROWS + 1). */
export const activeKeysByHwidForActor = (db: Db, serviceId: string, hwid: string, actor: Actor) =>
  repo.searchActiveKeys(db, serviceId, { hwid }, keyScopeOf(actor));

/** Active and generated keys the actor may see, counted (the Luarmor stats' `users`). */
export const countKeysForActor = (db: Db, serviceId: string, actor: Actor) => repo.countKeys(db, serviceId, keyScopeOf(actor));
