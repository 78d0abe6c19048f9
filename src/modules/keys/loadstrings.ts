import type { AppContext } from '../../context.ts';
import { visibleLoadstrings } from '../scripts/scripts.service.ts';

export interface ScriptLoadstring {
  scriptId: string;
  name: string;
  loadstring: string;
}

/** The visible scripts of a service with their loadstrings (by-chat `includeLoadstring=1`). */
export async function scriptLoadstrings(ctx: AppContext, serviceId: string): Promise<ScriptLoadstring[]> {
  const scripts = await visibleLoadstrings(ctx, serviceId);
  return scripts.map(({ id, name, loadstring }) => ({ scriptId: id, name, loadstring }));
}
