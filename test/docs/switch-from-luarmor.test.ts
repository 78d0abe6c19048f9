// Contract §27: the switch page shows one Luarmor user record with every field, what each becomes, and how to get the file.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LUARMOR_FIELDS, parseImport } from '../../src/modules/keys/keys-import.ts';

const page = readFileSync(new URL('../../docs/switch-from-luarmor.md', import.meta.url), 'utf8');

describe('docs/switch-from-luarmor.md', () => {
  it('shows a whole user record, which the import reads, and names every field in its table', () => {
    const section = page.slice(page.indexOf('### What one user record looks like'));
    expect(section.length).toBeLessThan(page.length);
    const record = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)![1]!) as Record<string, unknown>;
    for (const field of LUARMOR_FIELDS) expect(Object.keys(record)).toContain(field);
    for (const field of Object.keys(record)) expect(section).toContain(`\`${field}\``);
    const [key] = parseImport({ format: 'luarmor', data: [record] });
    expect(key).toMatchObject({ active: true, executions: 341, hwidResetCount: 2, hwidResetAt: 1764201600_000 });
  });

  it('says how to get the file from Luarmor', () => {
    expect(page).toContain('https://api.luarmor.net/v3/projects/$LUARMOR_PROJECT/users');
  });
});
