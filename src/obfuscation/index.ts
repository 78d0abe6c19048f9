import type { Config } from '../config.ts';
import { CommandProvider } from './command.ts';
import { LuraphProvider } from './luraph.ts';
import type { ObfuscationProvider } from './provider.ts';

export type ObfuscatedType = 'IB1' | 'LURAPH' | 'WYNFUSCATOR';
export * from './provider.ts';

/**
 * The provider for each type this server can obfuscate. A command configured for a type wins;
 * LURAPH otherwise uses Luraph's HTTP API when LURAPH_API_KEY is set. A type missing here is
 * unavailable (422 OBFUSCATOR_UNAVAILABLE).
 */
export function providersFrom(config: Config['obfuscation']): Partial<Record<ObfuscatedType, ObfuscationProvider>> {
  const providers: Partial<Record<ObfuscatedType, ObfuscationProvider>> = {};
  for (const [type, command] of Object.entries(config.commands) as Array<[ObfuscatedType, string]>) {
    providers[type] = new CommandProvider(command, config.timeoutMs, config.maxOutputBytes);
  }
  if (!providers.LURAPH && config.luraph.apiKey) {
    providers.LURAPH = new LuraphProvider({
      apiKey: config.luraph.apiKey,
      apiUrl: config.luraph.apiUrl,
      pollIntervalMs: config.luraph.pollIntervalMs,
      timeoutMs: config.timeoutMs,
      maxOutputBytes: config.maxOutputBytes,
    });
  }
  return providers;
}
