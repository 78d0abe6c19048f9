const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);

/** Pages carry no inline script, so the policy can forbid it; the ALTCHA widget needs inline styles and a blob: worker. */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function htmlPage(title: string, body: string, head = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem; color: #1d1d1f; }
label { display: block; margin: 1rem 0 .25rem; font-weight: 600; }
input[type=text] { width: 100%; box-sizing: border-box; padding: .5rem; font: inherit; }
button { margin-top: 1rem; padding: .5rem 1rem; font: inherit; }
altcha-widget { display: block; margin-top: 1rem; }
.result { margin-top: 1rem; padding: .75rem; border-radius: .25rem; }
.ok { background: #e6f4ea; } .fail { background: #fce8e6; }
</style>
${head}
</head>
<body>
${body}
</body>
</html>
`;
}
