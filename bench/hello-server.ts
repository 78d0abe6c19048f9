import Fastify from 'fastify';

// The baseline: a bare Fastify hello, as a user would write one to compare against (no logger, no schema).
const app = Fastify();
app.get('/hello', async () => ({ hello: 'world' }));
const address = await app.listen({ host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ msg: 'listening', address }));
// Exit normally on SIGTERM, so a CPU profile (node --cpu-prof, bench/cpu-cost.ts with PROFILE_DIR) is written.
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
