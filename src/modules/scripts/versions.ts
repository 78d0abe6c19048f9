import type { Db } from '../../db/database.ts';
import { deleteBlob } from './code-store.ts';
import * as repo from './scripts.repository.ts';

/** How many versions a script keeps (contract §13.2); older ones go in the transaction that adds a new one. */
export const KEPT_VERSIONS = 20;

/**
 * Records a freshly written source blob as the script's next version and prunes what falls out of the
 * last KEPT_VERSIONS, blobs included. Call inside the transaction that points the script at the blob,
 * after touchScript (or the insert) has locked the row, so two uploads never pick one number.
 * A pruned version is never the current one: the new version becomes current in the same transaction.
 */
export async function addVersion(
  trx: Db,
  scriptId: string,
  blob: { blobId: string; size: number; sha256: string },
  now: number,
): Promise<number> {
  const version = (await repo.latestVersion(trx, scriptId)) + 1;
  await repo.insertVersion(trx, { scriptId, version, blobId: blob.blobId, size: blob.size, sha256: blob.sha256, createdAt: now });
  const cutoff = version - KEPT_VERSIONS;
  if (cutoff >= 1) {
    for (const old of await repo.versionsUpTo(trx, scriptId, cutoff)) await deleteBlob(trx, old.blobId);
    await repo.deleteVersionsUpTo(trx, scriptId, cutoff);
  }
  return version;
}
