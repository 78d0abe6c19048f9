import { Writable } from 'node:stream';
import Fastify from 'fastify';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { lazyChildLoggerFactory } from '../../src/lib/lazy-child-logger.ts';

// The request logger is made only when a request logs at an enabled level (the hot path's saving), and what it logs
// is what pino's own child would: the request id on every line.
function capture(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level }, stream), lines };
}

describe('the lazy request logger', () => {
  it('makes no child for a request that logs nothing at an enabled level, and one for a request that does', async () => {
    const { logger, lines } = capture('warn');
    const app = Fastify({ loggerInstance: logger, childLoggerFactory: lazyChildLoggerFactory, disableRequestLogging: true });
    app.get('/quiet', async (request) => {
      request.log.info('not at warn');
      request.log.debug({ detail: 1 }, 'nor this');
      return { ok: true };
    });
    app.get('/loud', async (request) => {
      request.log.warn({ detail: 2 }, 'something to see');
      request.log.error('and this');
      return { ok: true };
    });
    await app.ready();
    // Fastify's own children (its plugins') are made by now: from here on, only requests would make one.
    const child = vi.spyOn(logger, 'child');
    expect((await app.inject('/quiet')).statusCode).toBe(200);
    expect(child).not.toHaveBeenCalled();
    expect(lines).toEqual([]);
    expect((await app.inject('/loud')).statusCode).toBe(200);
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines.map((l) => [l.msg, l.reqId, l.detail])).toEqual([
      ['something to see', lines[0]!.reqId, 2],
      ['and this', lines[0]!.reqId, undefined],
    ]);
    expect(typeof lines[0]!.reqId).toBe('string');
    await app.close();
  });

  it("logs an error a route throws with the request's id, as pino's own child does", async () => {
    const { logger, lines } = capture('info');
    const app = Fastify({ loggerInstance: logger, childLoggerFactory: lazyChildLoggerFactory, genReqId: () => 'req-42' });
    app.get('/boom', async () => {
      throw new Error('kaput');
    });
    expect((await app.inject('/boom')).statusCode).toBe(500);
    expect(lines.find((l) => (l.err as { message?: string } | undefined)?.message === 'kaput')).toMatchObject({
      reqId: 'req-42',
      level: 50,
    });
    expect(lines.filter((l) => l.msg === 'incoming request' || l.msg === 'request completed').map((l) => l.reqId)).toEqual([
      'req-42',
      'req-42',
    ]);
    await app.close();
  });

  it("gives a route with a level of its own pino's child at once", async () => {
    const { logger, lines } = capture('warn');
    const app = Fastify({ loggerInstance: logger, childLoggerFactory: lazyChildLoggerFactory, disableRequestLogging: true });
    app.get('/chatty', { logLevel: 'debug' }, async (request) => {
      request.log.debug('seen at debug');
      return { ok: true };
    });
    await app.inject('/chatty');
    expect(lines.map((l) => l.msg)).toEqual(['seen at debug']);
    await app.close();
  });
});
