/** What an obfuscator gets: the original code as a stream of UTF-8 chunks, plus what it needs to name it. */
export interface ObfuscationInput {
  scriptName: string;
  size: number;
  chunks: () => AsyncIterable<Buffer>;
}

/**
 * One interface for every obfuscator. `obfuscate` resolves with the output bytes or rejects with an
 * ObfuscationFailed whose message is kept as the script's failure reason. It must stop promptly
 * when `signal` aborts (the app is closing).
 */
export interface ObfuscationProvider {
  readonly kind: 'command' | 'luraph';
  obfuscate(input: ObfuscationInput, signal: AbortSignal): Promise<Buffer[]>;
}

/** An expected failure of the obfuscator (bad script, timeout, refused by the API): its message is shown to the seller. */
export class ObfuscationFailed extends Error {}
