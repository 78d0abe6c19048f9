import Fastify from 'fastify';

// The baseline: a bare Fastify route, started the same way and with the same log level as Keyward.
const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'warn' } });
app.get('/hello', async () => ({ hello: 'world' }));
const address = await app.listen({ host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ msg: 'listening', address }));
