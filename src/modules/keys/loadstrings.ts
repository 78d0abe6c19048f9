import type { AppContext } from '../../context.ts';

export interface ScriptLoadstring {
  scriptId: string;
  name: string;
  loadstring: string;
}

/**
 * The visible scripts of a service with their loadstrings. Script storage arrives with the
 * scripts module; until a service has scripts this is an empty list.
 */
export async function scriptLoadstrings(_ctx: AppContext, _serviceId: string): Promise<ScriptLoadstring[]> {
  return [];
}
