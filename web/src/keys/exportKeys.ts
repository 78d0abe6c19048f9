import { api, ApiError, serviceHeaders } from '../api/client';
import { keyFiltersToExportQuery, type KeyFilters } from './filters';
import { filenameOf } from './types';

/** Streams the export of the filtered keys into a download (the browser saves it under the server's filename). */
export async function downloadExport(serviceId: string, filters: KeyFilters, format: 'csv' | 'json') {
  const {
    data: blob,
    error,
    response,
  } = await api.GET('/api/v1/keys/api/keys/export', {
    headers: serviceHeaders(serviceId),
    params: { query: keyFiltersToExportQuery(filters, format) },
    parseAs: 'blob',
  });
  if (!response.ok || !blob) {
    const body = (error ?? {}) as { error?: string; code?: string };
    throw new ApiError(response.status, {
      success: false,
      error: body.error ?? `Export failed (${response.status})`,
      code: body.code ?? 'UNKNOWN',
    });
  }
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filenameOf(response.headers.get('content-disposition'), `keys.${format}`);
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has taken the blob once click() returns; revoking later keeps slow browsers safe.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
