import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { MAX_RUNNING_IMPORTS, parseImportOffThread } from '../../src/modules/keys/import-workers.ts';
import { EXPORT_COLUMNS } from '../../src/modules/keys/keys-csv.ts';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';

// Guarantee: parsing or checking an import never blocks the server: while a 16 MB import is read, /healthz and
// /keys/validate keep answering. Asserted by progress, not by timings: many health checks and validations finish
// one after another while the import is still running, which cannot happen while its parse holds the event loop.
const t = useTestApp();

describe('an import is read off the event loop', () => {
  it('keeps answering /healthz and /keys/validate while a 16 MB CSV (a header, then commas) is parsed, then refuses it', async () => {
    const s = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, s.serviceKey);
    // A valid header, so the whole body is parsed: one row of about 15.9 million empty cells.
    const data = `${EXPORT_COLUMNS.join(',')}\r\n${','.repeat(15_900_000)}\r\n`;
    let importAnswered = false;
    const importing = call(t().app, 'POST', '/api/v1/keys/api/keys/import', {
      key: s.serviceKey,
      body: { format: 'keyward-csv', data },
    }).finally(() => {
      importAnswered = true;
    });

    let answeredMeanwhile = 0;
    while (!importAnswered) {
      const health = await t().app.inject({ method: 'GET', url: '/healthz' });
      expect(health.statusCode).toBe(200);
      const validate = await call(t().app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${key}&hwid=pc-1`);
      expect(validate.status).toBe(200);
      if (!importAnswered) answeredMeanwhile++;
      // On SQLite both answers can complete without leaving the microtask queue: give the event loop its turn, as
      // a real client's next request would (the worker's answer arrives as an event).
      await new Promise((resolve) => setImmediate(resolve));
    }
    const res = await importing;
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', field: 'data' });
    expect(res.body.error).toMatch(new RegExp(`row at index 0 has \\d+ cells; the header has ${EXPORT_COLUMNS.length}`));
    // Pairs of health check and validation that started and finished while the import was running.
    expect(answeredMeanwhile).toBeGreaterThanOrEqual(5);
    // Nothing was imported: the service still has only its one key (redeemed by the validations).
    const active = await t().ctx.db.selectFrom('activeKeys').select('key').where('serviceId', '=', s.id).execute();
    const generated = await t().ctx.db.selectFrom('generatedKeys').select('key').where('serviceId', '=', s.id).execute();
    expect([...active, ...generated]).toEqual([{ key }]);
    // The parse shares two cores with the requests above and the other test files: on a loaded CI machine it took over
    // the default 30 s once, and the abandoned parse then held a slot the next test counts on.
  }, 120_000);
});

describe('imports being read at once', () => {
  it('reads at most MAX_RUNNING_IMPORTS at a time: one more is 429 with Retry-After, and a later one is read again', async () => {
    const data = `${EXPORT_COLUMNS.join(',')}\r\n${','.repeat(200_000)}\r\n`;
    const reading = Array.from({ length: MAX_RUNNING_IMPORTS }, () =>
      parseImportOffThread({ format: 'keyward-csv', data }).then(
        () => null,
        (error: unknown) => error,
      ),
    );
    const refused = await parseImportOffThread({ format: 'keyward-csv', data }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', status: 429, extras: { retryAfter: 10 } });
    for (const outcome of await Promise.all(reading)) expect(outcome).toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(parseImportOffThread({ format: 'keyward-csv', data })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});
