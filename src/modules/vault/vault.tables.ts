declare module '../../db/types.ts' {
  interface Database {
    vaultScripts: VaultScriptsTable;
  }
}

export interface VaultScriptsTable {
  id: string;
  accountId: string;
  name: string;
  /** AES-256-GCM under the server secret (ctx.sealer); never stored in clear. */
  codeSealed: string;
  /** UTF-8 bytes of the plaintext code. */
  size: number;
  createdAt: number;
  updatedAt: number;
}
