import { Type } from 'typebox';
import { Note, NullableString, Page, Paging, Strict, Time } from '../../schemas.ts';
import { MaxSessions } from '../keys/keys.schemas.ts';

const ProductName = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[^\\x00-\\x1F\\x7F]+$',
  errorMessage: 'must be 1 to 64 characters, none of them control characters',
});
const Expiration = Type.Union([Type.Literal('byDays'), Type.Literal('afterRedeem'), Type.Literal('lifetime')], {
  errorMessage: 'must be one of byDays, afterRedeem, lifetime',
});
const Days = Type.Integer({ minimum: 1, maximum: 3650, errorMessage: 'must be a whole number from 1 to 3650' });
const MaxHwids = Type.Integer({ minimum: 1, maximum: 100, errorMessage: 'must be a whole number from 1 to 100' });
const NullableNote = Type.Union([Note, Type.Null()], { errorMessage: 'must be a string of at most 256 characters or null' });
const NullableInteger = Type.Unsafe<number | null>({ type: ['integer', 'null'] });

export const Product = Type.Object({
  id: Type.String(),
  name: Type.String(),
  expirationType: Type.String(),
  days: NullableInteger,
  isPremium: Type.Boolean(),
  maxHwids: Type.Integer(),
  maxSessions: Type.Integer(),
  note: NullableString,
  createdAt: Time,
  updatedAt: Time,
  deliveryUrls: Type.Object({ generic: Type.String(), sellix: Type.String(), sellauth: Type.String() }),
});

export const ProductBody = Strict({
  name: ProductName,
  expirationType: Expiration,
  days: Type.Optional(Type.Union([Days, Type.Null()], { errorMessage: 'must be a whole number from 1 to 3650 or null' })),
  isPremium: Type.Optional(Type.Boolean()),
  maxHwids: Type.Optional(MaxHwids),
  maxSessions: Type.Optional(MaxSessions),
  note: Type.Optional(NullableNote),
});

export const ProductEditBody = Strict({
  name: Type.Optional(ProductName),
  expirationType: Type.Optional(Expiration),
  days: Type.Optional(Type.Union([Days, Type.Null()], { errorMessage: 'must be a whole number from 1 to 3650 or null' })),
  isPremium: Type.Optional(Type.Boolean()),
  maxHwids: Type.Optional(MaxHwids),
  maxSessions: Type.Optional(MaxSessions),
  note: Type.Optional(NullableNote),
});

export const ProductParams = Strict({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export const PageQuery = Strict({ ...Paging });
export const ProductPage = Page(Product);

const Secret = Type.Union(
  [
    Type.String({
      minLength: 1,
      maxLength: 256,
      pattern: '^[\\x20-\\x7E]+$',
      errorMessage: 'must be 1 to 256 printable characters, or null to disconnect the shop',
    }),
    Type.Null(),
  ],
  { errorMessage: 'must be 1 to 256 printable characters, or null to disconnect the shop' },
);
export const ShopBody = Strict({
  genericSecret: Type.Optional(Secret),
  sellixSecret: Type.Optional(Secret),
  sellauthSecret: Type.Optional(Secret),
});
export const ShopSettings = Type.Object({
  genericSecret: NullableString,
  sellixSecret: NullableString,
  sellauthSecret: NullableString,
});

export const Order = Type.Object({
  orderId: Type.String(),
  shop: Type.String(),
  productId: Type.String(),
  productName: Type.String(),
  quantity: Type.Integer(),
  keys: Type.Array(Type.String()),
  email: NullableString,
  createdAt: Time,
});
export const OrderPage = Page(Order);
