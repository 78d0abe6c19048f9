import type { AppContext } from '../../context.ts';
import { buyerSnippet, visibleLoadstrings } from '../scripts/scripts.service.ts';

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

export interface ScriptSnippet {
  scriptId: string;
  name: string;
  /** `script_key = "<key>"` above the loadstring: what the buyer pastes as it is. */
  snippet: string;
}

/** The buyer-ready snippets of the visible scripts, carrying the buyer's own key. */
export const snippetsFor = (loadstrings: ScriptLoadstring[], key: string): ScriptSnippet[] =>
  loadstrings.map(({ scriptId, name, loadstring }) => ({ scriptId, name, snippet: buyerSnippet(loadstring, key) }));
