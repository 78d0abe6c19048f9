/** A script as the API lists it (contract §3, plus §13.3's switch fields, present only while it is off). */
export interface Script {
  id: string;
  name: string;
  obfuscationType: string;
  visible: boolean;
  size: number;
  status: 'ready' | 'processing' | 'failed';
  createdAt: string;
  updatedAt: string;
  loadstring: string;
  failureReason?: string;
  enabled?: boolean;
  disabledMessage?: string;
  /** Which executors it runs on (contract §29); read through ruleOf. */
  executors?: unknown;
}

/** The kill switch's message limit (contract §13.3). */
export const DISABLED_MESSAGE_MAX = 200;

/** A sentence when the message cannot be sent, else null. */
export function disabledMessageProblem(message: string): string | null {
  const length = [...message].length;
  return length > DISABLED_MESSAGE_MAX
    ? `The message may be at most ${DISABLED_MESSAGE_MAX} characters; it has ${length}. Shorten it.`
    : null;
}
