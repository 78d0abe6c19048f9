/**
 * `pending`: waiting for `nextAttemptAt`. `sending`: claimed by one instance until `leaseUntil`
 * (an expired lease means that instance died; the message is claimed again). `delivered` and
 * `failed` are final.
 */
export type OutboxStatus = 'pending' | 'sending' | 'delivered' | 'failed';

export interface WebhookOutboxTable {
  id: string;
  serviceId: string;
  /** The webhook address when the message was accepted (a record: the worker sends to the address the service has then). */
  url: string;
  /** JSON of what is posted to the platform. */
  payload: string;
  status: OutboxStatus;
  attempts: number;
  nextAttemptAt: number;
  claimToken: string | null;
  leaseUntil: number | null;
  lastError: string | null;
  createdAt: number;
  deliveredAt: number | null;
}

declare module '../../db/types.ts' {
  interface Database {
    webhookOutbox: WebhookOutboxTable;
  }
}
