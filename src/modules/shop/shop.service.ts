import type { Selectable } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { ProductsTable, ShopOrdersTable } from '../../db/schema.ts';
import { AppError, conflict, invalid, notFound } from '../../errors.ts';
import { pageOf, type PageRequest } from '../../lib/pagination.ts';
import { newId } from '../../lib/random.ts';
import { iso } from '../../lib/time.ts';
import { recordServiceAudit } from '../audit/audit.service.ts';
import type { Actor } from '../audit/actor.ts';
import { emitEvent } from '../events/events.service.ts';
import { insertNewKeys } from '../keys/keys.service.ts';
import { orderOf, signatureValid, type OrderRequest, type Provider } from './shop.formats.ts';
import * as repo from './shop.repository.ts';

type ProductRow = Pick<Selectable<ProductsTable>, keyof ProductsTable>;
export type ProductExpiration = ProductsTable['expirationType'];

export interface ProductInput {
  name: string;
  expirationType: ProductExpiration;
  days?: number | null;
  isPremium?: boolean;
  maxHwids?: number;
  maxSessions?: number;
  note?: string | null;
}

/** The addresses a seller pastes into each shop (contract §12.2), built from BASE_URL. */
export const deliveryUrls = (ctx: AppContext, productId: string) => ({
  generic: `${ctx.config.baseUrl}/api/v1/public/shop/generic/${productId}`,
  sellix: `${ctx.config.baseUrl}/api/v1/public/shop/sellix/${productId}`,
  sellauth: `${ctx.config.baseUrl}/api/v1/public/shop/sellauth/${productId}`,
});

export function toProductView(ctx: AppContext, row: ProductRow) {
  return {
    id: row.id,
    name: row.name,
    expirationType: row.expirationType,
    days: row.days,
    isPremium: row.isPremium === 1,
    maxHwids: row.maxHwids,
    maxSessions: row.maxSessions,
    note: row.note,
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
    deliveryUrls: deliveryUrls(ctx, row.id),
  };
}

/** byDays and afterRedeem need days; lifetime has none. Checked on the product as it will be stored. */
function checkExpiration(expirationType: ProductExpiration, days: number | null) {
  if (expirationType === 'lifetime' && days !== null)
    throw invalid('days', 'days is only used when expirationType is byDays or afterRedeem');
  if (expirationType !== 'lifetime' && days === null) throw invalid('days', `days is required when expirationType is ${expirationType}`);
}

export async function listProducts(ctx: AppContext, serviceId: string, page: PageRequest) {
  const [rows, total] = await Promise.all([
    repo.listProducts(ctx.db, serviceId, page.limit, page.offset),
    repo.countProducts(ctx.db, serviceId),
  ]);
  return pageOf(
    rows.map((row) => toProductView(ctx, row)),
    total,
    page,
  );
}

export async function createProduct(ctx: AppContext, serviceId: string, input: ProductInput, actor: Actor) {
  const days = input.days ?? null;
  checkExpiration(input.expirationType, days);
  const now = ctx.clock();
  const row: ProductRow = {
    id: newId(),
    serviceId,
    name: input.name,
    expirationType: input.expirationType,
    days,
    isPremium: input.isPremium ? 1 : 0,
    maxHwids: input.maxHwids ?? 1,
    maxSessions: input.maxSessions ?? 0,
    note: input.note ?? null,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.db.transaction().execute(async (trx) => {
    await repo.insertProduct(trx, row);
    const details = { name: row.name, expirationType: row.expirationType, days };
    await recordServiceAudit(trx, actor, serviceId, 'product.create', row.id, details, now);
  });
  return toProductView(ctx, row);
}

export async function updateProduct(ctx: AppContext, serviceId: string, id: string, edit: Partial<ProductInput>, actor: Actor) {
  const now = ctx.clock();
  return ctx.db.transaction().execute(async (trx) => {
    const current = await repo.findProduct(trx, serviceId, id);
    if (!current) throw notFound('Product');
    // Switching to lifetime drops the days unless they were sent; the result is checked whole.
    const expirationType = edit.expirationType ?? current.expirationType;
    const days = edit.days !== undefined ? edit.days : expirationType === 'lifetime' ? null : current.days;
    checkExpiration(expirationType, days);
    const patch = {
      expirationType,
      days,
      ...(edit.name !== undefined && { name: edit.name }),
      ...(edit.isPremium !== undefined && { isPremium: edit.isPremium ? (1 as const) : (0 as const) }),
      ...(edit.maxHwids !== undefined && { maxHwids: edit.maxHwids }),
      ...(edit.maxSessions !== undefined && { maxSessions: edit.maxSessions }),
      ...(edit.note !== undefined && { note: edit.note }),
      updatedAt: now,
    };
    const result = await repo.updateProduct(trx, serviceId, id, patch);
    if (Number(result.numUpdatedRows) === 0) throw notFound('Product');
    // Named by its name, and only what changed (contract §22).
    const details: Record<string, unknown> = { name: patch.name ?? current.name };
    if (patch.name !== undefined && patch.name !== current.name) details.previousName = current.name;
    for (const field of ['expirationType', 'days', 'isPremium', 'maxHwids', 'note'] as const) {
      if (field in patch && (patch[field as keyof typeof patch] ?? null) !== (current[field] ?? null))
        details[field] = edit[field] ?? patch[field as keyof typeof patch];
    }
    await recordServiceAudit(trx, actor, serviceId, 'product.update', id, details, now);
    return toProductView(ctx, { ...current, ...patch });
  });
}

export async function deleteProduct(ctx: AppContext, serviceId: string, id: string, actor: Actor) {
  await ctx.db.transaction().execute(async (trx) => {
    const current = await repo.findProduct(trx, serviceId, id);
    const result = await repo.deleteProduct(trx, serviceId, id);
    if (!current || Number(result.numDeletedRows) === 0) throw notFound('Product');
    await recordServiceAudit(trx, actor, serviceId, 'product.delete', id, { name: current.name }, ctx.clock());
  });
}

// ---------------------------------------------------------------- shop secrets

const SECRET_COLUMNS = {
  genericSecret: 'genericSecretSealed',
  sellixSecret: 'sellixSecretSealed',
  sellauthSecret: 'sellauthSecretSealed',
} as const;
type SecretName = keyof typeof SECRET_COLUMNS;
export type ShopSecretsInput = Partial<Record<SecretName, string | null>>;

const masked = (sealed: string | null | undefined) => (sealed ? '****' : null);

export async function shopSettings(ctx: AppContext, serviceId: string) {
  const row = await repo.findShopSettings(ctx.db, serviceId);
  return {
    genericSecret: masked(row?.genericSecretSealed),
    sellixSecret: masked(row?.sellixSecretSealed),
    sellauthSecret: masked(row?.sellauthSecretSealed),
  };
}

/** Write-only secrets: a string replaces, null clears, a field left out stays. Stored sealed, never shown. */
export async function updateShopSettings(ctx: AppContext, serviceId: string, input: ShopSecretsInput, actor: Actor) {
  const now = ctx.clock();
  await ctx.db.transaction().execute(async (trx) => {
    const current = await repo.findShopSettings(trx, serviceId);
    const row = {
      serviceId,
      genericSecretSealed: current?.genericSecretSealed ?? null,
      sellixSecretSealed: current?.sellixSecretSealed ?? null,
      sellauthSecretSealed: current?.sellauthSecretSealed ?? null,
      updatedAt: now,
    };
    for (const name of Object.keys(SECRET_COLUMNS) as SecretName[]) {
      const value = input[name];
      if (value !== undefined) row[SECRET_COLUMNS[name]] = value === null ? null : ctx.sealer.seal(value);
    }
    await repo.saveShopSettings(trx, row);
    // What changed, never the secret itself.
    const details = Object.fromEntries(Object.entries(input).map(([name, value]) => [name, value === null ? 'cleared' : 'set']));
    await recordServiceAudit(trx, actor, serviceId, 'shop.update', null, details, now);
  });
  return shopSettings(ctx, serviceId);
}

// ---------------------------------------------------------------- delivery

const SECRET_OF: Record<Provider, 'genericSecretSealed' | 'sellixSecretSealed' | 'sellauthSecretSealed'> = {
  generic: 'genericSecretSealed',
  sellix: 'sellixSecretSealed',
  sellauth: 'sellauthSecretSealed',
};

/**
 * A shop's request for keys (contract §12.2), from its raw bytes: the product must exist and its service must
 * have this shop's secret (else 404, as for a product that does not exist), the signature must match the
 * exact bytes (else 401, nothing made), then the order is read and delivered. Answers the keys, one per line.
 */
export async function deliverFromShop(
  ctx: AppContext,
  provider: Provider,
  productId: string,
  raw: Buffer,
  headers: Record<string, string | string[] | undefined>,
  ip: string,
): Promise<string[]> {
  const product = await repo.findProductById(ctx.db, productId);
  if (!product) throw notFound('Product');
  const settings = await repo.findShopSettings(ctx.db, product.serviceId);
  const sealed = settings?.[SECRET_OF[provider]];
  if (!sealed) throw notFound('Product');
  if (!signatureValid(provider, ctx.sealer.open(sealed), raw, headers)) {
    throw new AppError('UNAUTHORIZED', 'The request is not signed with this shop’s secret');
  }
  return deliver(ctx, provider, product, orderOf(provider, raw, headers), ip);
}

/**
 * One transaction: the order row, the keys, the audit entry and the event. The order row is claimed first:
 * of concurrent retries of one order (on any instance) exactly one claims it and makes keys; the others find
 * the row once the winner has committed and answer its keys.
 */
async function deliver(ctx: AppContext, provider: Provider, product: ProductRow, order: OrderRequest, ip: string) {
  const now = ctx.clock();
  const orderRowId = newId();
  const made = await ctx.db.transaction().execute(async (trx) => {
    const claimed = await repo.claimOrder(trx, {
      id: orderRowId,
      serviceId: product.serviceId,
      provider,
      orderId: order.orderId,
      productId: product.id,
      productName: product.name,
      quantity: order.quantity,
      keys: '[]',
      email: order.email,
      createdAt: now,
    });
    if (!claimed) return null;
    const rows = await insertNewKeys(
      trx,
      product.serviceId,
      {
        expirationType: product.expirationType,
        ...(product.days !== null && { days: product.days }),
        count: order.quantity,
        isPremium: product.isPremium === 1,
        maxHwids: product.maxHwids,
        maxSessions: product.maxSessions,
        ...(product.note !== null && { note: product.note }),
        ...(order.chatId !== null && { chatId: order.chatId }),
      },
      now,
    );
    const keys = rows.map((row) => row.key);
    await repo.setOrderKeys(trx, orderRowId, keys);
    const details = { orderId: order.orderId, quantity: order.quantity, provider, productId: product.id, productName: product.name };
    await recordServiceAudit(trx, { kind: 'system', accountId: null, ip }, product.serviceId, 'order.delivered', null, details, now);
    await emitEvent(trx, product.serviceId, 'order.delivered', { serviceId: product.serviceId, provider, ...order, keys }, now);
    return keys;
  });
  if (made) return made;
  // Another request delivered this order first (a retry, or the same retry racing on another instance).
  const existing = await repo.findOrder(ctx.db, product.serviceId, provider, order.orderId);
  if (!existing) throw new Error('the order row that refused ours is gone');
  if (existing.productId !== product.id) throw conflict('This order id was already delivered for another product');
  return JSON.parse(existing.keys) as string[];
}

// ---------------------------------------------------------------- orders

function toOrderView(row: Selectable<ShopOrdersTable>) {
  return {
    orderId: row.orderId,
    shop: row.provider,
    productId: row.productId,
    productName: row.productName,
    quantity: row.quantity,
    keys: JSON.parse(row.keys) as string[],
    email: row.email,
    createdAt: iso(row.createdAt)!,
  };
}

export async function listOrders(ctx: AppContext, serviceId: string, page: PageRequest) {
  const [rows, total] = await Promise.all([
    repo.listOrders(ctx.db, serviceId, page.limit, page.offset),
    repo.countOrders(ctx.db, serviceId),
  ]);
  return pageOf(rows.map(toOrderView), total, page);
}
