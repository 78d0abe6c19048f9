import type { ApiData, ItemOf } from '../api/types';
import type { paths } from '../api/schema';

/** A row of the listing (contract §7.2): an active or a generated key, told apart by `type`. */
export type KeyRecord = ItemOf<ApiData<'/api/v1/keys/api/keys'>['items']>;
export type ActiveKeyRecord = Extract<KeyRecord, { type: 'active' }>;

export type BulkAction = paths['/api/v1/keys/api/keys/bulk']['post']['requestBody']['content']['application/json']['action'];
