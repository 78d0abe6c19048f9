// The security headers of every HTML page the server serves itself: the dashboard and the API docs at /docs.

// The app is one script bundle with no inline script; Mantine sets inline styles and the ALTCHA
// widget solves its proof-of-work in a blob: worker. The QR code of the 2FA setup is a data: image.
// Swagger UI (/docs) fits the same policy: its page loads its scripts from /docs/static, and its icons are data: images.
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Header name → value, set on every page the server renders. */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': DASHBOARD_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};
