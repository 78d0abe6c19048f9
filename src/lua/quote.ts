/** A Lua 5.1 string literal for any text: safe to splice into generated Lua source. */
export function luaString(text: string): string {
  let out = '"';
  for (const byte of Buffer.from(text, 'utf8')) {
    if (byte === 0x22) out += '\\"';
    else if (byte === 0x5c) out += '\\\\';
    // Always three digits: `\\10` followed by the text's own "2" would read back as `\\102` ("f").
    else if (byte < 0x20 || byte >= 0x7f) out += `\\${String(byte).padStart(3, '0')}`;
    else out += String.fromCharCode(byte);
  }
  return out + '"';
}

/** Lua that raises an error naming a code; what the fetch route answers instead of a script. */
export function luaError(code: string, message: string): string {
  return `error(${luaString(`Keyward: ${code}: ${message}`)}, 0)\n`;
}
