import { sql, type Kysely } from 'kysely';

// Usernames are unique regardless of case (`FRANK` cannot sign up beside `frank`), enforced by the database: a
// unique index on lower(username), in both dialects (usernames are ASCII letters, digits and _ . -, so SQL's
// lower() and JavaScript's toLowerCase() agree).
//
// Accounts that already differ only by case are not merged, renamed or disabled: each keeps signing in with its
// exact spelling. The oldest of each such group (by createdAt, then id) owns the name for every other spelling;
// the later ones get `username_case_duplicate = 1`, which leaves them out of the index, and are listed on stderr
// here. The flag stays until an operator settles the pair (docs/security.md: find them, then delete or rename one).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE accounts ADD COLUMN username_case_duplicate integer NOT NULL DEFAULT 0`.execute(db);
  await sql`
    UPDATE accounts SET username_case_duplicate = 1
    WHERE EXISTS (
      SELECT 1 FROM accounts older
      WHERE lower(older.username) = lower(accounts.username)
        AND (older.created_at < accounts.created_at OR (older.created_at = accounts.created_at AND older.id < accounts.id))
    )`.execute(db);
  const { rows } = await sql<{ username: string; id: string; username_case_duplicate: number }>`
    SELECT username, id, username_case_duplicate FROM accounts
    WHERE lower(username) IN (SELECT lower(username) FROM accounts WHERE username_case_duplicate = 1)
    ORDER BY lower(username), created_at, id`.execute(db);
  if (rows.length > 0) {
    const lines = rows.map(
      (r) =>
        `  ${r.username} (account ${r.id})${Number(r.username_case_duplicate) === 1 ? ': signs in with this exact spelling only' : ': keeps the name'}`,
    );
    process.stderr.write(
      `keyward: migration 0014 found usernames that differ only by case; none was merged or changed:\n${lines.join('\n')}\n` +
        'keyward: see docs/security.md ("Usernames") to settle them.\n',
    );
  }
  await sql`CREATE UNIQUE INDEX accounts_username_lower ON accounts (lower(username)) WHERE username_case_duplicate = 0`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX accounts_username_lower`.execute(db);
  await sql`ALTER TABLE accounts DROP COLUMN username_case_duplicate`.execute(db);
}
