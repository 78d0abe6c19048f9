/** The BASE_URL the dashboard should warn about when it is open at another origin, else null (contract §11). */
export function mismatchedBaseUrl(baseUrl: string | null, currentOrigin: string): string | null {
  if (!baseUrl) return null;
  try {
    return new URL(baseUrl).origin === currentOrigin ? null : baseUrl;
  } catch {
    return baseUrl;
  }
}
