import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { anyAccountExists } from './modules/accounts/accounts.service.ts';
import { isLoopbackHost } from './lib/ip.ts';
import { holdServerLock } from './db/server-lock.ts';
import { resolve } from 'node:path';

/** Process entry: config, listen, graceful shutdown. Everything else is in buildApp. */
async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`keyward: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  const app = await buildApp({ config });
  // Contract §10: stop accepting, let requests in flight finish (up to 10 s, then their connections are cut),
  // stop the background jobs (the last analytics flush), close the database, exit 0.
  const closeGracefully = async (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    const cut = setTimeout(() => {
      app.log.warn('requests still running 10 s after the signal: closing their connections');
      app.server.closeAllConnections();
    }, 10_000);
    const stuck = setTimeout(() => {
      console.error('keyward: shutdown did not finish within 20 s; exiting anyway');
      process.exit(1);
    }, 20_000);
    // Close keeps an open connection until its request ends; one left idle afterwards (keep-alive) would then
    // hold the exit until the 10 s cut, so idle connections are closed as they appear.
    const idle = setInterval(() => app.server.closeIdleConnections(), 100);
    cut.unref();
    stuck.unref();
    idle.unref();
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void closeGracefully('SIGINT'));
  process.once('SIGTERM', () => void closeGracefully('SIGTERM'));

  const address = await app.listen({ host: config.host, port: config.port });
  // `keyward restore` refuses while this file names a live server (src/db/server-lock.ts).
  if (!config.databaseUrl) process.once('exit', holdServerLock(config.dataDir));
  const database = config.databaseUrl ? 'PostgreSQL' : `SQLite at ${config.dataDir}/keyward.db`;
  // Printed whatever the log level: people (and the process-level tests) read where it listens here.
  console.log(`Keyward listening on ${address} (${database})`);
  if (!(await anyAccountExists(app.ctx.db))) {
    console.log(`Create the first account: ${firstAccountCommand(config)}`);
  }
  if (!config.baseUrlSet && !isLoopbackHost(config.host)) {
    // The trap of a first deploy: reachable from this machine, so the check below would say all is well.
    console.warn(
      `keyward: warning: BASE_URL is not set, so loadstrings and links will point at ${config.baseUrl}, which only this machine can open; ` +
        'set BASE_URL to the address buyers use (for example BASE_URL=https://keys.example.com) and restart.',
    );
    return;
  }
  const reachable = await answersAt(config.baseUrl);
  if (reachable === true) console.log(`BASE_URL ${config.baseUrl} reaches this server`);
  else {
    console.warn(
      `keyward: warning: BASE_URL ${config.baseUrl} does not reach this server (${reachable}); loadstrings and links point there. ` +
        'Set BASE_URL to the address clients use.',
    );
  }
}

/**
 * The command that creates the first account, as the person who started this server types it (contract §22):
 * KEYWARD_CLI when the deployment names its own (compose.yaml: through `docker compose exec`), the `keyward` wrapper
 * docs/deploy.md installs when systemd runs the server (way B), otherwise npx in the clone. The password is asked
 * for (twice), so it never lands in the shell history.
 */
function firstAccountCommand(config: { databaseUrl: string | null; dataDir: string }): string {
  const args = 'account create --username admin --role admin';
  if (process.env.KEYWARD_CLI) return `${process.env.KEYWARD_CLI} ${args}`;
  if (process.env.INVOCATION_ID) return `keyward ${args}`;
  const dataDir = config.databaseUrl || resolve(config.dataDir) === resolve('data') ? '' : `DATA_DIR=${config.dataDir} `;
  return `${dataDir}npx keyward ${args}`;
}

/** Whether BASE_URL leads back to this server: true, or why not. Behind a proxy the server may not see its own public address. */
async function answersAt(baseUrl: string): Promise<true | string> {
  try {
    const response = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(3000), redirect: 'manual' });
    return response.headers.get('x-request-id') ? true : `it answered ${response.status} without Keyward's X-Request-Id`;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return cause?.code ?? (error instanceof Error ? error.message : String(error));
  }
}

main().catch((error) => {
  console.error('keyward failed to start:', error);
  process.exit(1);
});
