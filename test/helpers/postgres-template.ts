import pg from 'pg';
import { migrate, openDatabase } from '../../src/db/database.ts';

/**
 * Migrates one template database per run; every test file then copies it (CREATE DATABASE … TEMPLATE),
 * which takes milliseconds and lets files run in parallel on their own data.
 */
export const ADMIN_URL = process.env.KEYWARD_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export function templateName(): string {
  return process.env.KEYWARD_TEST_PG_TEMPLATE ?? `kw_tpl_${process.pid}`;
}

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export default async function setup() {
  const name = `kw_tpl_${process.pid}`;
  process.env.KEYWARD_TEST_PG_TEMPLATE = name;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  const handle = openDatabase({ databaseUrl: databaseUrl(name), dataDir: '' });
  await migrate(handle.db);
  await handle.close();
  // Copies fail while anyone is connected to the template; nobody is now.
  return async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  };
}
