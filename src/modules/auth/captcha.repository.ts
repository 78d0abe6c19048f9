import type { Db } from '../../db/database.ts';
import { isUniqueViolation } from '../../db/database.ts';

/**
 * Records a solved captcha as spent until it expires; false when it was spent already (on any instance).
 * Spent rows past their expiry are removed by the maintenance job.
 */
export async function spendCaptcha(db: Db, signature: string, expiresAt: number): Promise<boolean> {
  try {
    await db.insertInto('captchaUses').values({ signature, expiresAt }).execute();
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}
