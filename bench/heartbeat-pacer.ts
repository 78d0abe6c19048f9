/**
 * Heartbeats of live sessions at their own rate, in the background of another target's measurement (bench/run.ts, the
 * *Live targets): `node --import tsx bench/heartbeat-pacer.ts <base> <service> <ids file> <per second>`. Sessions take
 * turns, so each beats once per round of the list. bench/run.ts stops it (SIGSTOP) while other targets are measured and
 * lets it go on (SIGCONT) for its own; the pacing never catches up on time spent stopped. On SIGTERM it prints one
 * JSON line: heartbeats answered alive, ended (410) and failed.
 */
import { readFileSync } from 'node:fs';

const [base, service, idsFile, perSecondText] = process.argv.slice(2);
const ids = readFileSync(idsFile!, 'utf8').split('\n').filter(Boolean);
const TICK_MS = 10;
const perTick = Number(perSecondText) / (1000 / TICK_MS);
const counts = { alive: 0, ended: 0, failed: 0 };
let next = 0;
let owed = 0;

const beat = (id: string) =>
  fetch(`${base}/api/v1/public/sessions/${service}/${id}/heartbeat`, { method: 'POST' }).then(
    async (response) => {
      await response.arrayBuffer();
      if (response.status === 200) counts.alive++;
      else if (response.status === 410) counts.ended++;
      else counts.failed++;
    },
    () => counts.failed++,
  );

setInterval(() => {
  owed += perTick;
  for (; owed >= 1; owed--) void beat(ids[next++ % ids.length]!);
}, TICK_MS);

process.once('SIGTERM', () => {
  console.log(JSON.stringify(counts));
  process.exit(0);
});
