import type { Generated } from 'kysely';
import type { Flag } from '../../db/types.ts';

export type ObfuscationType = 'NONE' | 'IB1' | 'LURAPH' | 'WYNFUSCATOR';
export type ScriptStatus = 'ready' | 'processing' | 'failed';

export interface ScriptsTable {
  id: string;
  serviceId: string;
  name: string;
  obfuscationType: ObfuscationType;
  visible: Flag;
  status: ScriptStatus;
  failureReason: string | null;
  /** The code as uploaded (kept so a change of type can re-run the obfuscator). */
  sourceBlob: string;
  /** UTF-8 bytes of the uploaded code. */
  size: number;
  /** What the fetch route hands out; null until the obfuscator has finished. Equals sourceBlob for NONE. */
  outputBlob: string | null;
  outputSize: number | null;
  /** Changes on every (re-)run, so a stale worker's result is never written over a newer one. */
  jobId: string | null;
  /** A worker holds the job until then (epoch ms); null means nobody does. */
  leaseUntil: number | null;
  createdAt: number;
  updatedAt: number;
  /** Kill switch (contract §13.3): a disabled script's fetch raises disabledMessage and counts nothing. */
  enabled: Generated<Flag>;
  disabledMessage: string | null;
  /** The script_versions row whose blob is sourceBlob. */
  currentVersion: Generated<number>;
  /** Hex SHA-256 of outputBlob (what fetch serves); null while there is none. */
  outputSha256: string | null;
}

/** Script code is stored as ordered chunks of at most CHUNK_BYTES so nothing ever needs it whole in memory. */
export interface ScriptChunksTable {
  blobId: string;
  seq: number;
  /** UTF-8 text; written as its bytes, read back as a Buffer (SQLite) or a string (PostgreSQL). */
  data: string | Buffer;
}

declare module '../../db/types.ts' {
  interface Database {
    scripts: ScriptsTable;
    scriptChunks: ScriptChunksTable;
  }
}
