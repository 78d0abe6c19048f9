import { sql, SqliteAdapter, type Kysely } from 'kysely';

// Key search of 1 or 2 characters (contract §7.2). A trigram index (0012) has nothing to look up for such a term,
// so it is matched by reading the service's keys; what made that slow (1.0–1.4 s at a million keys) was the work per
// key: lower() and LIKE over key, note and chat id, plus a pass over the HWIDs table. Each key row now carries
// `search_text`: its key, note, chat id and (active keys) every bound HWID, lower-cased, each after a \x01 separator,
// so a short term is one instr()/strpos() per key on one column. Triggers keep it in step with every write (insert,
// update of the key, note or chat id, HWID bind/unbind), so no code path can forget it. No index: a narrow B-tree
// would be about as large as the table and could not skip rows either; on PostgreSQL a long note could also exceed
// a B-tree entry's size limit.

const SEP_SQLITE = 'char(1)';
const SEP_PG = 'chr(1)';

/** The text of an active key, from the row (`row.` prefix for its columns) and its rows in key_hwids. */
const activeText = (row: string, sep: string, aggregate: string) =>
  `lower(${sep} || ${row}key || ${sep} || coalesce(${row}note, '') || ${sep} || coalesce(${row}chat_id, '') || coalesce((${aggregate}), ''))`;
const generatedText = (row: string, sep: string) =>
  `lower(${sep} || ${row}key || ${sep} || coalesce(${row}note, '') || ${sep} || coalesce(${row}chat_id, ''))`;

const sqliteHwids = (key: string) => `SELECT group_concat(char(1) || h.hwid, '') FROM key_hwids h WHERE h.key = ${key}`;
const pgHwids = (key: string) => `SELECT string_agg(chr(1) || h.hwid, '') FROM key_hwids h WHERE h.key = ${key}`;

const isSqlite = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof SqliteAdapter;

export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  await run('ALTER TABLE active_keys ADD COLUMN search_text text');
  await run('ALTER TABLE generated_keys ADD COLUMN search_text text');

  if (isSqlite(db)) {
    // SQLite triggers cannot change NEW, so they write the row again; that UPDATE names only search_text, which
    // fires neither these triggers nor 0012's (those watch key, note and chat_id).
    const setActive = (where: string) =>
      `UPDATE active_keys SET search_text = ${activeText('active_keys.', SEP_SQLITE, sqliteHwids('active_keys.key'))} WHERE ${where};`;
    const setGenerated = `UPDATE generated_keys SET search_text = ${generatedText('generated_keys.', SEP_SQLITE)} WHERE rowid = new.rowid;`;
    await run(`CREATE TRIGGER active_keys_text_insert AFTER INSERT ON active_keys BEGIN ${setActive('rowid = new.rowid')} END`);
    await run(
      `CREATE TRIGGER active_keys_text_update AFTER UPDATE OF key, note, chat_id ON active_keys BEGIN ${setActive('rowid = new.rowid')} END`,
    );
    await run(`CREATE TRIGGER generated_keys_text_insert AFTER INSERT ON generated_keys BEGIN ${setGenerated} END`);
    await run(`CREATE TRIGGER generated_keys_text_update AFTER UPDATE OF key, note, chat_id ON generated_keys BEGIN ${setGenerated} END`);
    await run(`CREATE TRIGGER key_hwids_text_insert AFTER INSERT ON key_hwids BEGIN ${setActive('key = new.key')} END`);
    await run(`CREATE TRIGGER key_hwids_text_delete AFTER DELETE ON key_hwids BEGIN ${setActive('key = old.key')} END`);
    await run(
      `CREATE TRIGGER key_hwids_text_update AFTER UPDATE OF key, hwid ON key_hwids BEGIN ${setActive('key = old.key')} ${setActive('key = new.key')} END`,
    );
    await run(`UPDATE active_keys SET search_text = ${activeText('active_keys.', SEP_SQLITE, sqliteHwids('active_keys.key'))}`);
    await run(`UPDATE generated_keys SET search_text = ${generatedText('generated_keys.', SEP_SQLITE)}`);
    return;
  }

  // PostgreSQL: BEFORE triggers set NEW.search_text on the key tables (no second row version); key_hwids' AFTER
  // trigger rewrites its key's text. UPDATE OF lists keep the validation hot path (last_used_at, executions) free.
  await run(`CREATE FUNCTION active_keys_search_text() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN NEW.search_text := ${activeText('NEW.', SEP_PG, pgHwids('NEW.key'))}; RETURN NEW; END $$`);
  await run(`CREATE FUNCTION generated_keys_search_text() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN NEW.search_text := ${generatedText('NEW.', SEP_PG)}; RETURN NEW; END $$`);
  const setActive = (key: string) =>
    `UPDATE active_keys a SET search_text = ${activeText('a.', SEP_PG, pgHwids('a.key'))} WHERE a.key = ${key};`;
  await run(`CREATE FUNCTION key_hwids_search_text() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' THEN ${setActive('OLD.key')} END IF;
      IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.key IS DISTINCT FROM OLD.key) THEN ${setActive('NEW.key')} END IF;
      RETURN NULL;
    END $$`);
  await run(`CREATE TRIGGER active_keys_search_text BEFORE INSERT OR UPDATE OF key, note, chat_id ON active_keys
    FOR EACH ROW EXECUTE FUNCTION active_keys_search_text()`);
  await run(`CREATE TRIGGER generated_keys_search_text BEFORE INSERT OR UPDATE OF key, note, chat_id ON generated_keys
    FOR EACH ROW EXECUTE FUNCTION generated_keys_search_text()`);
  await run(`CREATE TRIGGER key_hwids_search_text AFTER INSERT OR DELETE OR UPDATE OF key, hwid ON key_hwids
    FOR EACH ROW EXECUTE FUNCTION key_hwids_search_text()`);
  await run(`UPDATE active_keys a SET search_text = ${activeText('a.', SEP_PG, pgHwids('a.key'))}`);
  await run(`UPDATE generated_keys g SET search_text = ${generatedText('g.', SEP_PG)}`);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  if (isSqlite(db)) {
    for (const name of ['active_keys_text_insert', 'active_keys_text_update', 'generated_keys_text_insert', 'generated_keys_text_update'])
      await run(`DROP TRIGGER IF EXISTS ${name}`);
    for (const name of ['key_hwids_text_insert', 'key_hwids_text_delete', 'key_hwids_text_update'])
      await run(`DROP TRIGGER IF EXISTS ${name}`);
  } else {
    for (const table of ['active_keys', 'generated_keys', 'key_hwids']) {
      await run(`DROP TRIGGER IF EXISTS ${table}_search_text ON ${table}`);
      await run(`DROP FUNCTION IF EXISTS ${table}_search_text()`);
    }
  }
  await run('ALTER TABLE active_keys DROP COLUMN search_text');
  await run('ALTER TABLE generated_keys DROP COLUMN search_text');
}
