/** What the person must fix, said as one sentence (a message, exit 1), never a bug. */
export class OpsError extends Error {}
