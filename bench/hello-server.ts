import Fastify from 'fastify';

// The baseline: a bare Fastify route answering the same envelope as a valid verdict, through a
// response schema as Keyward's routes do, started with the same log level.
const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'warn' } });
const verdict = {
  type: 'object',
  properties: {
    success: { type: 'boolean' },
    data: {
      type: 'object',
      properties: {
        valid: { type: 'boolean' },
        code: { type: 'string' },
        message: { type: 'string' },
        isPremium: { type: 'boolean' },
        expiresAt: { type: ['string', 'null'] },
      },
    },
  },
};
const answer = {
  success: true,
  data: { valid: true, code: 'KEY_VALID', message: 'The key is valid', isPremium: false, expiresAt: '2026-12-22T10:00:00.000Z' },
};
app.get('/hello', { schema: { response: { 200: verdict } } }, async () => answer);
const address = await app.listen({ host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ msg: 'listening', address }));
// Exit normally on SIGTERM, so a CPU profile (node --cpu-prof, bench/cpu-cost.ts with PROFILE_DIR) is written.
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
