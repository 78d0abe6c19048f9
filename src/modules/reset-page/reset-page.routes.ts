import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Responses } from '../../schemas.ts';
import { ResetResult } from '../keys/keys.schemas.ts';
import { AppError } from '../../errors.ts';
import { consumeCaptcha } from '../auth/auth.service.ts';
import { serviceForClient } from '../services/services.service.ts';
import { resetAnswer, resetHwid } from '../keys/keys.service.ts';
import { endUserActor } from '../audit/actor.ts';
import { escapeHtml, htmlPage, PAGE_CSP } from '../../lib/html.ts';
import { altchaWidgetSource, RESET_PAGE_SCRIPT } from './reset-page.assets.ts';
import { PageParams, ResetBody } from './reset-page.schemas.ts';

/** The page and its assets, at /reset. */
export async function resetPageRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const hide = { hide: true };

  app.get('/reset/assets/altcha.js', { config: { limit: 'client' }, schema: hide }, async (_request, reply) =>
    reply.type('application/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(altchaWidgetSource()),
  );

  app.get('/reset/assets/reset.js', { config: { limit: 'client' }, schema: hide }, async (_request, reply) =>
    reply.type('application/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(RESET_PAGE_SCRIPT),
  );

  app.get('/reset/:service', { config: { limit: 'client' }, schema: { ...hide, params: PageParams } }, async (request, reply) => {
    reply.header('content-security-policy', PAGE_CSP).header('x-content-type-options', 'nosniff').type('text/html; charset=utf-8');
    let service;
    try {
      service = await serviceForClient(app.ctx, request.params.service);
    } catch (error) {
      if (error instanceof AppError && error.code === 'NOT_FOUND') {
        return reply.status(404).send(htmlPage('Service not found', '<h1>Service not found</h1><p>Check the link you were given.</p>'));
      }
      throw error;
    }
    const name = escapeHtml(service.name);
    return reply.send(
      htmlPage(
        `Reset HWID · ${service.name}`,
        `<h1>Reset your HWID</h1>
<p>${name}: enter your key to unbind it from your current device, then run the script on the new one.</p>
<form id="reset-form" data-service="${escapeHtml(service.identifier)}">
<label for="key">Key</label>
<input id="key" name="key" type="text" autocomplete="off" spellcheck="false" maxlength="64" required>
<div id="captcha"></div>
<button type="submit">Reset HWID</button>
</form>
<div id="result" class="result" role="status" hidden></div>`,
        '<script src="/reset/assets/altcha.js" defer></script>\n<script src="/reset/assets/reset.js" defer></script>',
      ),
    );
  });
}

/** POST /api/v1/public/reset-hwid: the page's action. Same rule and codes as POST /keys/reset-hwid. */
export default async function publicResetRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/public/reset-hwid',
    {
      config: { limit: 'client' },
      schema: {
        summary: 'Reset an HWID from the self-serve page',
        description: 'Public: needs a solved captcha; same cooldown and answers as POST /keys/reset-hwid.',
        tags: ['keys'],
        body: ResetBody,
        response: Responses(ResetResult),
      },
    },
    async (request) => {
      // The captcha goes first: it is what makes guessing keys here expensive.
      await consumeCaptcha(app.ctx, request.body.captcha);
      const service = await serviceForClient(app.ctx, request.body.service);
      return { success: true as const, data: resetAnswer(await resetHwid(app.ctx, service, request.body.key, endUserActor(request.ip))) };
    },
  );
}
