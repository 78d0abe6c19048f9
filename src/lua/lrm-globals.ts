import { luaString } from './quote.ts';

/** What a script written for Luarmor reads about its run (contract §16.3). */
export interface LrmGlobals {
  isUserPremium: boolean;
  linkedDiscordId: string;
  /** Whole seconds to expiry; null for a lifetime key (math.huge). */
  secondsLeft: number | null;
  totalExecutions: number;
  userNote: string;
  scriptName: string;
  scriptVersion: string;
}

/**
 * Lua that sets Luarmor's LRM_ globals through getgenv() where the executor has it, else _G. Every string is a Lua
 * literal that reads back byte for byte (quote.ts), whatever a note holds. One line ending in a space, so the stored
 * code after it keeps its own line numbers in error messages.
 */
export function lrmGlobalsPrefix(g: LrmGlobals): string {
  const values: Array<[string, string]> = [
    ['LRM_IsUserPremium', g.isUserPremium ? 'true' : 'false'],
    ['LRM_LinkedDiscordID', luaString(g.linkedDiscordId)],
    ['LRM_SecondsLeft', g.secondsLeft === null ? 'math.huge' : String(g.secondsLeft)],
    ['LRM_TotalExecutions', String(g.totalExecutions)],
    ['LRM_UserNote', luaString(g.userNote)],
    ['LRM_ScriptName', luaString(g.scriptName)],
    ['LRM_ScriptVersion', luaString(g.scriptVersion)],
  ];
  const sets = values.map(([name, value]) => `e.${name}=${value}`).join(' ');
  return `do local e=(type(getgenv)=="function" and getgenv()) or _G ${sets} end `;
}
