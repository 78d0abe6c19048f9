import type { Db } from '../../db/database.ts';

/** The event names of contract §12.4. */
export type EventType = 'key.redeemed' | 'key.banned' | 'key.deleted' | 'key.hwidReset' | 'keySystem.keyIssued' | 'order.delivered';

/**
 * The one call point for outbound events (contract §12.4). Called inside the transaction of the change, so
 * the event's outbox row, once event webhooks exist, commits or rolls back with it. Until then it records
 * nothing: event endpoints are not built yet (issue 23 item 4), and this keeps every caller in place for them.
 */
export async function emitEvent(
  _trx: Db,
  _serviceId: string,
  _type: EventType,
  _data: Record<string, unknown>,
  _now: number,
): Promise<void> {}
