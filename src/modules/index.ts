import type { FastifyPluginAsync } from 'fastify';
import healthRoutes from './health/health.routes.ts';
import accountRoutes from './accounts/accounts.routes.ts';
import serviceRoutes from './services/services.routes.ts';
import memberRoutes from './services/members.routes.ts';
import keyRoutes from './keys/keys.routes.ts';
import keylessRoutes from './keyless/keyless.routes.ts';
import blacklistRoutes from './blacklist/blacklist.routes.ts';
import serviceSettingsRoutes from './service-settings/service-settings.routes.ts';
import validationRoutes from './validation/validation.routes.ts';
import authRoutes from './auth/auth.routes.ts';
import adminRoutes from './admin/admin.routes.ts';
import vaultRoutes, { vaultTokenRoutes } from './vault/vault.routes.ts';
import shortenerRoutes, { shortLinkRedirectRoutes } from './shortener/shortener.routes.ts';
import publicResetRoutes, { resetPageRoutes } from './reset-page/reset-page.routes.ts';
import scriptRoutes from './scripts/scripts.routes.ts';
import loaderRoutes from './loader/loader.routes.ts';
import luaRoutes from './lua/lua.routes.ts';
import webhookRoutes from './webhook/webhook.routes.ts';
import chatRoutes from './chat/chat.routes.ts';
import dashboardRoutes from './dashboard/dashboard.routes.ts';
import auditRoutes from './audit/audit.routes.ts';
import analyticsRoutes from './analytics/analytics.routes.ts';
import signingRoutes from './signing/signing.routes.ts';
import shopRoutes from './shop/shop.routes.ts';
import shopDeliveryRoutes from './shop/shop-delivery.routes.ts';
import variablesRoutes from './variables/variables.routes.ts';
import relayRoutes from './relay/relay.routes.ts';
import eventRoutes from './events/events.routes.ts';
import discordRoleRoutes from './discord-role/discord-role.routes.ts';
import luarmorRoutes from './luarmor/luarmor.routes.ts';
import sessionRoutes from './sessions/sessions.routes.ts';
import { keySystemPageRoutes, keySystemSettingsRoutes, publicKeySystemRoutes } from './key-system/key-system.routes.ts';

/** Every feature's routes and where they mount. A new module adds one line. */
export const modules: Array<{ plugin: FastifyPluginAsync; prefix: string }> = [
  { plugin: healthRoutes, prefix: '' },
  { plugin: accountRoutes, prefix: '/api/v1' },
  { plugin: serviceRoutes, prefix: '/api/v1' },
  { plugin: memberRoutes, prefix: '/api/v1' },
  { plugin: keyRoutes, prefix: '/api/v1' },
  { plugin: keylessRoutes, prefix: '/api/v1' },
  { plugin: blacklistRoutes, prefix: '/api/v1' },
  { plugin: serviceSettingsRoutes, prefix: '/api/v1' },
  { plugin: validationRoutes, prefix: '/api/v1' },
  { plugin: authRoutes, prefix: '/api/v1' },
  { plugin: adminRoutes, prefix: '/api/v1' },
  { plugin: vaultTokenRoutes, prefix: '/api/v1' },
  { plugin: vaultRoutes, prefix: '/api/v3/vault' },
  { plugin: shortenerRoutes, prefix: '/api/v1' },
  { plugin: shortLinkRedirectRoutes, prefix: '' },
  { plugin: publicResetRoutes, prefix: '/api/v1' },
  { plugin: resetPageRoutes, prefix: '' },
  { plugin: scriptRoutes, prefix: '/api/v1' },
  { plugin: loaderRoutes, prefix: '/api/v1' },
  { plugin: luaRoutes, prefix: '/api/v1' },
  { plugin: webhookRoutes, prefix: '/api/v1' },
  { plugin: chatRoutes, prefix: '/api/v1' },
  { plugin: keySystemSettingsRoutes, prefix: '/api/v1' },
  { plugin: publicKeySystemRoutes, prefix: '/api/v1' },
  { plugin: keySystemPageRoutes, prefix: '' },
  { plugin: auditRoutes, prefix: '/api/v1' },
  { plugin: analyticsRoutes, prefix: '/api/v1' },
  { plugin: signingRoutes, prefix: '/api/v1' },
  { plugin: shopRoutes, prefix: '/api/v1' },
  { plugin: shopDeliveryRoutes, prefix: '/api/v1' },
  { plugin: variablesRoutes, prefix: '/api/v1' },
  { plugin: relayRoutes, prefix: '/api/v1' },
  { plugin: eventRoutes, prefix: '/api/v1' },
  { plugin: discordRoleRoutes, prefix: '/api/v1' },
  { plugin: luarmorRoutes, prefix: '/luarmor' },
  { plugin: sessionRoutes, prefix: '/api/v1' },
  { plugin: dashboardRoutes, prefix: '' },
];
