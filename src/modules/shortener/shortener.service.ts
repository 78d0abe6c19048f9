import type { AppContext } from '../../context.ts';
import { isUniqueViolation } from '../../db/database.ts';
import { conflict, invalid, notFound } from '../../errors.ts';
import { pageOf, type PageRequest } from '../../lib/pagination.ts';
import { randomAlphanumeric } from '../../lib/random.ts';
import { iso } from '../../lib/time.ts';
import * as repo from './shortener.repository.ts';

export const MAX_URL_LENGTH = 2048;
export const SLUG_PATTERN = /^[A-Za-z0-9_-]{3,32}$/;
const GENERATED_SLUG_LENGTH = 7;

/**
 * Only http(s) targets: a short link must never become a javascript:, data: or file: trampoline.
 * The stored form is the parsed URL (ASCII, percent-encoded), which is always safe in a Location header.
 */
export function targetUrl(raw: string): string {
  if (raw.length > MAX_URL_LENGTH) throw invalid('url', `url must be at most ${MAX_URL_LENGTH} characters`);
  let parsed: URL | null = null;
  if (/^https?:\/\//i.test(raw) && !/[\s\x00-\x1f\x7f]/.test(raw)) {
    try {
      parsed = new URL(raw);
    } catch {
      parsed = null;
    }
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !parsed.hostname) {
    throw invalid('url', 'url must be an http or https URL');
  }
  if (parsed.href.length > MAX_URL_LENGTH) throw invalid('url', `url must be at most ${MAX_URL_LENGTH} characters`);
  return parsed.href;
}

export const shortUrlOf = (ctx: AppContext, slug: string) => `${ctx.config.baseUrl}/go/${slug}`;

export async function createShortLink(ctx: AppContext, serviceId: string, input: { url: string; slug?: string }) {
  const url = targetUrl(input.url);
  if (input.slug !== undefined && !SLUG_PATTERN.test(input.slug)) {
    throw invalid('slug', 'slug must be 3 to 32 characters of letters, digits, _ and -');
  }
  // A chosen slug that is taken is the caller's conflict; a random one that collides is simply drawn again.
  for (let attempt = 0; ; attempt++) {
    const slug = input.slug ?? randomAlphanumeric(GENERATED_SLUG_LENGTH);
    try {
      await repo.insertShortLink(ctx.db, { slug, serviceId, url, createdAt: ctx.clock() });
      return { slug, shortUrl: shortUrlOf(ctx, slug), url };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      if (input.slug !== undefined || attempt >= 4) throw conflict(`The slug ${slug} is taken`);
    }
  }
}

export async function followShortLink(ctx: AppContext, slug: string): Promise<string | null> {
  if (!SLUG_PATTERN.test(slug)) return null;
  return (await repo.followShortLink(ctx.db, slug))?.url ?? null;
}

export async function listShortLinks(ctx: AppContext, serviceId: string, page: PageRequest) {
  const { items, total } = await repo.pageShortLinks(ctx.db, serviceId, page);
  return pageOf(
    items.map((row) => ({
      slug: row.slug,
      shortUrl: shortUrlOf(ctx, row.slug),
      url: row.url,
      clicks: Number(row.clicks),
      createdAt: iso(row.createdAt)!,
    })),
    total,
    page,
  );
}

export async function deleteShortLink(ctx: AppContext, serviceId: string, slug: string) {
  const result = await repo.deleteShortLink(ctx.db, serviceId, slug);
  if (Number(result.numDeletedRows) === 0) throw notFound('Short link');
  return { deleted: 1 };
}
