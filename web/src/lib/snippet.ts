/** What a buyer pastes into their executor where no key has been chosen yet. */
export const KEY_PLACEHOLDER = 'KEY_HERE';

/**
 * The buyer-ready snippet: the loader reads the global `script_key`, so a loadstring without that line
 * answers KEY_INCORRECT. The line sits above the loadstring, with a chosen key or the placeholder.
 */
export function buyerSnippet(loadstring: string, key: string = KEY_PLACEHOLDER): string {
  const safeKey = key.replace(/[^A-Za-z0-9_-]/g, '') || KEY_PLACEHOLDER;
  return `script_key = "${safeKey}"\n${loadstring}`;
}
