// Contract §17: the role table decides every service route, so a service route that names no action cannot exist.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { installAuth } from '../../src/plugins/auth.ts';
import { useTestApp } from '../helpers/app.ts';

const t = useTestApp();

describe('every service route declares its action', () => {
  it('refuses to register a service or Luarmor route without config.action, and takes one with it', async () => {
    for (const auth of ['service', 'luarmor'] as const) {
      const app = Fastify();
      installAuth(app, t().ctx);
      app.get('/named', { config: { auth, action: 'keys.read' } }, async () => 'ok');
      expect(() => app.get('/unnamed', { config: { auth } }, async () => 'ok')).toThrow(/declares no config.action/);
      await app.close();
    }
  });

  it('holds for the whole app as built (it starts)', async () => {
    expect(t().app.hasRoute({ method: 'GET', url: '/api/v1/keys/api/keys' })).toBe(true);
  });
});
