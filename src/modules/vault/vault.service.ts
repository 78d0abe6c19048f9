import type { Updateable } from 'kysely';
import type { AppContext } from '../../context.ts';
import { isUniqueViolation } from '../../db/database.ts';
import { AppError, conflict, invalid, notFound } from '../../errors.ts';
import { pageOf, type PageRequest } from '../../lib/pagination.ts';
import { newId, UUID_PATTERN } from '../../lib/random.ts';
import { iso } from '../../lib/time.ts';
import type { VaultScriptsTable } from '../../db/schema.ts';
import * as repo from './vault.repository.ts';

/** Same rule as VSS script names (contract §3). */
export const SCRIPT_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;
export const MAX_CODE_BYTES = 41_943_040;

export const toVaultScriptView = (row: Pick<repo.VaultScriptRow, 'id' | 'name' | 'size' | 'createdAt' | 'updatedAt'>) => ({
  id: row.id,
  name: row.name,
  size: row.size,
  createdAt: iso(row.createdAt)!,
  updatedAt: iso(row.updatedAt)!,
});

function checkName(name: string) {
  if (!SCRIPT_NAME_PATTERN.test(name) || UUID_PATTERN.test(name)) {
    throw invalid('name', 'name must be 1 to 64 characters of letters, digits, _ . - and not shaped like a UUID');
  }
}

function sizeOf(code: string): number {
  const size = Buffer.byteLength(code, 'utf8');
  if (size > MAX_CODE_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', 'Script code must be at most 40 MB (41,943,040 bytes)');
  return size;
}

const nameTaken = (name: string) => conflict(`A vault script named ${name} already exists`);

async function getRow(ctx: AppContext, accountId: string, idOrName: string) {
  const ref = UUID_PATTERN.test(idOrName) ? { id: idOrName.toLowerCase() } : { name: idOrName };
  const row = await repo.findVaultScript(ctx.db, accountId, ref);
  if (!row) throw notFound('Vault script');
  return row;
}

export async function listVaultScripts(ctx: AppContext, accountId: string, page: PageRequest & { search?: string }) {
  const { items, total } = await repo.pageVaultScripts(ctx.db, accountId, page);
  return pageOf(items.map(toVaultScriptView), total, page);
}

export async function createVaultScript(ctx: AppContext, accountId: string, input: { name: string; code: string }) {
  checkName(input.name);
  const size = sizeOf(input.code);
  const now = ctx.clock();
  const row = { id: newId(), accountId, name: input.name, codeSealed: ctx.sealer.seal(input.code), size, createdAt: now, updatedAt: now };
  try {
    await repo.insertVaultScript(ctx.db, row);
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(input.name);
    throw error;
  }
  return toVaultScriptView(row);
}

export async function readVaultScript(ctx: AppContext, accountId: string, idOrName: string) {
  const row = await getRow(ctx, accountId, idOrName);
  return { ...toVaultScriptView(row), code: ctx.sealer.open(row.codeSealed) };
}

export async function updateVaultScript(ctx: AppContext, accountId: string, idOrName: string, input: { name?: string; code?: string }) {
  const row = await getRow(ctx, accountId, idOrName);
  const patch: Updateable<VaultScriptsTable> = { updatedAt: ctx.clock() };
  if (input.name !== undefined) {
    checkName(input.name);
    patch.name = input.name;
  }
  if (input.code !== undefined) {
    patch.size = sizeOf(input.code);
    patch.codeSealed = ctx.sealer.seal(input.code);
  }
  try {
    const result = await repo.updateVaultScript(ctx.db, accountId, row.id, patch);
    if (Number(result.numUpdatedRows) === 0) throw notFound('Vault script');
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(input.name!);
    throw error;
  }
  return toVaultScriptView({ ...row, ...patch } as repo.VaultScriptRow);
}

export async function deleteVaultScript(ctx: AppContext, accountId: string, idOrName: string) {
  const row = await getRow(ctx, accountId, idOrName);
  const result = await repo.deleteVaultScript(ctx.db, accountId, row.id);
  if (Number(result.numDeletedRows) === 0) throw notFound('Vault script');
  return { deleted: 1 };
}

/** For the auth plugin: the account a vault token stands for, or null (modules/vault/vault-token.ts). */
export { verifyVaultToken } from './vault-token.ts';
