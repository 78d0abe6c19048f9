// The CLI's usage texts, apart from the commands' modules: `keyward --help` and a mistyped command answer without
// loading the app (the commands import it when they run).

export const USAGE = `Usage:
  keyward account create --username <name> [--password <password>] [--role user|moderator|admin] [--json]
    (without --password it is asked for twice, hidden, or read from the first line of stdin)
  keyward account reset-password --username <name> [--password <password>]
    sets a new password and signs that account out everywhere (for a forgotten password)
  keyward migrate
  keyward keys export --service <id or identifier> [--format csv|json] [--out FILE]
  keyward keys import --service <id or identifier> --format keyward-csv|keyward-json|luarmor [--skip-duplicates] FILE
  keyward backup --out FILE      a consistent snapshot while the server runs (SQLite), or pg_dump -Fc (PostgreSQL)
  keyward restore FILE [--force] puts a snapshot back; the server must be stopped
  keyward copy-db --to postgres://…   copies every table of the embedded SQLite database into an empty PostgreSQL one
  keyward doctor                 checks BASE_URL, https, TRUST_PROXY, the database, the secret and each service's Discord settings

Uses the same settings as the server: DATABASE_URL (PostgreSQL) or DATA_DIR (embedded SQLite), KEYWARD_SECRET.`;

/**
 * The usage lines of one command (`keyward account create --help`): the lines of USAGE that start with the words
 * typed before the flag, with their indented continuation lines. Every command answers --help with its own usage
 * before any option is parsed, so a seller asking how to use one never meets "Unknown option".
 */
export function usageOf(words: string[]): string {
  const lines = USAGE.split('\n');
  for (let n = words.length; n > 0; n--) {
    const prefix = `  keyward ${words.slice(0, n).join(' ')}`;
    const picked: string[] = [];
    let inside = false;
    for (const line of lines) {
      if (line.startsWith('  keyward ')) inside = line === prefix || line.startsWith(prefix + ' ');
      else if (!line.startsWith('    ')) inside = false;
      if (inside) picked.push(line);
    }
    if (picked.length) return `Usage:\n${picked.join('\n')}`;
  }
  return USAGE;
}
