/**
 * A date input's day as the route's bound: `from` at 00:00 local, `to` at the last millisecond of that day.
 * Anything but a real calendar day (`2026-02-30` would roll over into March) is no bound.
 */
export function dayBound(day: string, end: boolean): string | undefined {
  const parts = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!parts) return undefined;
  const at = new Date(`${day}T00:00:00`);
  if (Number.isNaN(at.getTime()) || at.getDate() !== Number(parts[3])) return undefined;
  if (end) at.setDate(at.getDate() + 1);
  return new Date(at.getTime() - (end ? 1 : 0)).toISOString();
}
