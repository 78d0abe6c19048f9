// Renders docs/api.md from the server's OpenAPI document: every route with its summary, description, parameters and
// answers, grouped by tag. The words are the routes' own `summary` and `description`, so the page cannot drift from
// the API; `npm run gen:api` rewrites it with the dashboard's client.

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
}
interface Operation {
  tags?: string[];
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown>; required?: string[] } }> };
  responses?: Record<string, unknown>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

const INTRO = `# API reference

Every route of the HTTP API, generated from the server's own schemas by \`npm run gen:api\` (do not edit by hand).
The same document is served at \`/openapi.json\` and can be tried at \`/docs\` on a running server.

How to read it:
- **Who may call.** Service routes (\`/api/v1/keys/api/…\`, \`/api/v1/vss/api/…\`) take a service key in \`X-API-Key\`, or an
  account key or a dashboard session with \`X-Service-Id\`. Account routes take the account key or a session. Client
  routes (\`/api/v1/keys/validate\`, the loader, the public pages) take no key.
- **Answers.** \`{ "success": true, "data": … }\`, or \`{ "success": false, "error": "<sentence>", "code": "<CODE>" }\`
  with the status the code implies; see [Getting started](guide/getting-started.md#how-it-answers). Lists take \`page\`
  and \`limit\`.
- The binding rules behind each route are in [the contract](contract.md); the walk-throughs per feature are in
  [the guides](README.md).
`;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();

function fields(operation: Operation): string[] {
  const out: string[] = [];
  for (const p of operation.parameters ?? []) {
    if (p.in === 'header') continue;
    out.push(`\`${p.name}\`${p.required ? '' : '?'} (${p.in})`);
  }
  const schema = operation.requestBody?.content?.['application/json']?.schema;
  const required = new Set(schema?.required ?? []);
  for (const name of Object.keys(schema?.properties ?? {})) out.push(`\`${name}\`${required.has(name) ? '' : '?'} (body)`);
  return out;
}

export function apiReference(document: OpenApiDocument): string {
  const byTag = new Map<string, string[]>();
  for (const path of Object.keys(document.paths).sort()) {
    const item = document.paths[path]!;
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const tag = operation.tags?.[0] ?? 'other';
      const lines = [`### \`${method.toUpperCase()} ${path}\``, ''];
      if (operation.summary)
        lines.push(`**${oneLine(operation.summary)}.**${operation.description ? ' ' + oneLine(operation.description) : ''}`, '');
      else if (operation.description) lines.push(oneLine(operation.description), '');
      const taken = fields(operation);
      if (taken.length > 0) lines.push(`Takes: ${taken.join(', ')}.`, '');
      const statuses = Object.keys(operation.responses ?? {}).filter((s) => !/XX$/.test(s));
      if (statuses.length > 0) lines.push(`Answers: ${statuses.join(', ')}, or an error envelope.`, '');
      byTag.set(tag, [...(byTag.get(tag) ?? []), lines.join('\n')]);
    }
  }
  const sections = [...byTag.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([tag, routes]) => `## ${tag[0]!.toUpperCase()}${tag.slice(1)}\n\n${routes.join('\n')}`);
  return `${INTRO}\n${sections.join('\n')}`.replace(/\n+$/, '') + '\n';
}
