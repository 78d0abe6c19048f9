/** The words of a key's record that the keys module's files share. */
export type KeyStatus = 'active' | 'paused' | 'banned';
export type ExpirationType = 'byDays' | 'byDate' | 'lifetime' | 'afterRedeem';
/** A time as the API takes it: ISO 8601 text or epoch milliseconds. */
export type TimeInput = string | number;
