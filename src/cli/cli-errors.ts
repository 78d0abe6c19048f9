/** Raised for what the person must fix (a message, exit 1), never for a bug. */
export class OpsError extends Error {}

/** What the person must fix, said as one sentence (exit 1). */
export class CliError extends Error {}
