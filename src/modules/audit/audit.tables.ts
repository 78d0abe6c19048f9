declare module '../../db/types.ts' {
  interface Database {
    auditLog: AuditLogTable;
  }
}

export interface AuditLogTable {
  id: string;
  at: number;
  /** The account that owns what changed: its log lists the entry. Null only for a system change with no owner. */
  accountId: string | null;
  /** Set for service actions: the service's log lists the entry. */
  serviceId: string | null;
  action: string;
  actorKind: string;
  actorAccountId: string | null;
  ip: string | null;
  target: string | null;
  /** JSON object of what changed; never a secret. */
  details: string;
}
