import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';

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
  const closeGracefully = async (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), 10_000);
    timer.unref();
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void closeGracefully('SIGINT'));
  process.once('SIGTERM', () => void closeGracefully('SIGTERM'));

  const address = await app.listen({ host: config.host, port: config.port });
  const database = config.databaseUrl ? 'PostgreSQL' : `SQLite at ${config.dataDir}/keyward.db`;
  // Printed whatever the log level: people (and the process-level tests) read where it listens here.
  console.log(`Keyward listening on ${address} (${database})`);
  if (!config.databaseUrl) {
    console.log(`Create the first account: npx keyward account create --username admin --password '<at least 10 characters>' --role admin`);
  }
}

main().catch((error) => {
  console.error('keyward failed to start:', error);
  process.exit(1);
});
