// No file in src/ may import itself back through others (type-only imports count too: a loop of types is still a loop
// a reader has to untangle). Run by `npm run check`.
import madge from 'madge';

// Loops that exist today and are being removed elsewhere, each with where. A listed loop that no longer exists is an
// error too, so this list only ever shrinks.
const KNOWN = new Map([]);

const result = await madge('src', { fileExtensions: ['ts'] });
const found = result.circular().map((cycle) => cycle.join(' > '));
const unexpected = found.filter((cycle) => !KNOWN.has(cycle));
const gone = [...KNOWN.keys()].filter((cycle) => !found.includes(cycle));
for (const cycle of found.filter((c) => KNOWN.has(c))) console.warn(`known import loop (${KNOWN.get(cycle)}): ${cycle}`);
for (const cycle of unexpected) console.error(`import loop: ${cycle}`);
for (const cycle of gone) console.error(`listed as known but gone (remove it from scripts/check-cycles.mjs): ${cycle}`);
if (unexpected.length > 0 || gone.length > 0) process.exit(1);
console.log(`no import loop in src/ but the ${KNOWN.size} listed (${Object.keys(result.obj()).length} files)`);
