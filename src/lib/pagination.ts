/** The one place lists turn `page`/`limit` query text into numbers and shape the page (contract §1). */
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export interface PageRequest {
  page: number;
  limit: number;
  offset: number;
}

/** The query schema has already checked that both are whole numbers in range. */
export function pageRequest(query: { page?: string; limit?: string }): PageRequest {
  const page = query.page === undefined ? 1 : Number(query.page);
  const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
  return { page, limit, offset: (page - 1) * limit };
}

export function pageOf<T>(items: T[], total: number, request: PageRequest) {
  return { items, page: request.page, limit: request.limit, total, totalPages: Math.ceil(total / request.limit) };
}
