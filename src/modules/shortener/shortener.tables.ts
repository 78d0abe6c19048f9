import type { Generated } from 'kysely';

declare module '../../db/types.ts' {
  interface Database {
    shortLinks: ShortLinksTable;
  }
}

export interface ShortLinksTable {
  slug: string;
  serviceId: string;
  url: string;
  clicks: Generated<number>;
  createdAt: number;
}
