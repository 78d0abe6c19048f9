/** How long ago something happened, in the words a person says ("3 days ago"); pure, unit-tested. */
export function ageInWords(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'} ago`;
  if (minutes < 1) return 'just now';
  if (minutes < 60) return plural(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return plural(hours, 'hour');
  return plural(Math.floor(hours / 24), 'day');
}

export const databaseKindLabel = (kind: string) =>
  kind === 'postgres' ? 'PostgreSQL' : kind === 'sqlite' ? 'SQLite (the built-in database file)' : kind;
