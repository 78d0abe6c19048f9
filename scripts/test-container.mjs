#!/usr/bin/env node
// `npm run test:container`: builds Keyward's image with podman and checks, on this machine, what docs/deploy.md
// promises (contract §11):
//   1. the image alone starts as a non-root user, answers /healthz, serves the dashboard, and its HEALTHCHECK passes;
//   2. the compose stack answers over HTTPS through Caddy with a certificate from Caddy's internal CA, and the
//      client's address (not Caddy's) reaches Keyward's audit log.
// No image registry is reachable here, so the base image is made from Debian's packages (debootstrap) plus this
// machine's Node.js, and kept between runs. The compose file's services are started one by one from their
// definitions in compose.yaml: Keyward from the image with the file's environment (its DATABASE_URL and REDIS_URL
// pointed at this host's PostgreSQL and Redis, since no postgres or redis image can be pulled) and Caddy from
// Debian's package with the repository's Caddyfile (plus `local_certs`, the internal CA, in place of a public
// certificate). Set KEEP=1 to leave the containers and Caddy running for a look.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE = process.env.KEYWARD_CONTAINER_CACHE ?? '/var/tmp/keyward-container';
const NODE_VERSION = process.versions.node;
const BASE_IMAGE = `localhost/keyward-base:bookworm-node${NODE_VERSION}`;
const IMAGE = 'localhost/keyward:test';
const HOST_CA_BUNDLE = process.env.SSL_CERT_FILE ?? '/etc/ssl/certs/ca-certificates.crt';
const RUN_ID = `${process.pid}`;
const WORK = mkdtempSync(join(tmpdir(), 'keyward-container-'));
const started = Date.now();
const cleanups = [];

const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
const say = (message) => console.log(`[test:container ${elapsed()}] ${message}`);

// podman as this machine runs it: runc, no default ulimits (the container runtime may not raise them here).
const CONTAINERS_CONF = join(WORK, 'containers.conf');
writeFileSync(CONTAINERS_CONF, '[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"\n');
const podmanEnv = { ...process.env, CONTAINERS_CONF };

function podman(args, options = {}) {
  const result = spawnSync('podman', args, { env: podmanEnv, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.status !== 0 && !options.allowFailure) {
    throw new Error(`podman ${args.join(' ')} failed (${result.status}):\n${result.stderr ?? ''}${result.stdout ?? ''}`);
  }
  return result;
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', stdio: options.stdio ?? 'pipe', ...options });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stderr ?? ''}`);
  return result.stdout ?? '';
}

function check(condition, message) {
  if (!condition) throw new Error(`FAILED: ${message}`);
  say(`ok: ${message}`);
}

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Polls `probe` until it returns a truthy value (never a fixed sleep standing in for readiness). */
async function until(what, probe, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** A Debian bookworm base with this machine's Node.js and npm where the official images keep them (/usr/local). */
function ensureBaseImage() {
  if (podman(['image', 'exists', BASE_IMAGE], { allowFailure: true }).status === 0) {
    say(`base image ${BASE_IMAGE} is cached`);
    return;
  }
  const rootfs = join(CACHE, `rootfs-${NODE_VERSION}`);
  if (!existsSync(join(rootfs, 'etc/debian_version'))) {
    say('building the base image: debootstrap --variant=minbase bookworm (about a minute)');
    rmSync(rootfs, { recursive: true, force: true });
    mkdirSync(CACHE, { recursive: true });
    const mirror =
      /^URIs:\s*(\S+)/m.exec(readFileSync('/etc/apt/sources.list.d/debian.sources', 'utf8'))?.[1] ?? 'http://deb.debian.org/debian';
    run('debootstrap', ['--variant=minbase', 'bookworm', rootfs, mirror]);
  }
  // Node.js as the official images lay it out: the binary, npm, and the headers a native module compiles against.
  const nodeBin = process.execPath;
  const nodePrefix = dirname(dirname(nodeBin));
  mkdirSync(join(rootfs, 'usr/local/bin'), { recursive: true });
  mkdirSync(join(rootfs, 'usr/local/lib/node_modules'), { recursive: true });
  mkdirSync(join(rootfs, 'usr/local/include'), { recursive: true });
  run('cp', [nodeBin, join(rootfs, 'usr/local/bin/node')]);
  run('cp', ['-a', join(nodePrefix, 'lib/node_modules/npm'), join(rootfs, 'usr/local/lib/node_modules/')]);
  run('cp', ['-a', join(nodePrefix, 'include/node'), join(rootfs, 'usr/local/include/')]);
  for (const tool of ['npm', 'npx']) {
    rmSync(join(rootfs, 'usr/local/bin', tool), { force: true });
    run('ln', ['-s', `../lib/node_modules/npm/bin/${tool}-cli.js`, join(rootfs, 'usr/local/bin', tool)]);
  }
  // What a slim image leaves out: the package lists and downloaded packages.
  rmSync(join(rootfs, 'var/cache/apt/archives'), { recursive: true, force: true });
  mkdirSync(join(rootfs, 'var/cache/apt/archives/partial'), { recursive: true });
  rmSync(join(rootfs, 'var/lib/apt/lists'), { recursive: true, force: true });
  mkdirSync(join(rootfs, 'var/lib/apt/lists/partial'), { recursive: true });
  // The host's resolver and certificate authorities, so apt-get and npm inside a build reach their mirrors (here
  // the npm registry is reached through a proxy whose certificate authority only the host's bundle holds).
  writeFileSync(join(rootfs, 'etc/resolv.conf'), readFileSync('/etc/resolv.conf'));
  mkdirSync(join(rootfs, 'etc/ssl/certs'), { recursive: true });
  if (existsSync(HOST_CA_BUNDLE)) writeFileSync(join(rootfs, 'etc/ssl/certs/ca-certificates.crt'), readFileSync(HOST_CA_BUNDLE));
  const imported = spawnSync(
    'sh',
    [
      '-c',
      'tar -C "$1" -c . | podman import --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" --change "ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt" --change \'CMD ["node"]\' - "$2"',
      'import',
      rootfs,
      BASE_IMAGE,
    ],
    { env: podmanEnv, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  if (imported.status !== 0) throw new Error(`podman import failed: ${imported.stderr}`);
  say(`base image ${BASE_IMAGE} imported`);
}

const imageId = (name) => podman(['image', 'inspect', '--format', '{{.Id}}', name], { allowFailure: true }).stdout?.trim() || null;

function buildImage() {
  say(`podman build (BASE_IMAGE=${BASE_IMAGE})`);
  const previous = imageId(IMAGE);
  const result = spawnSync(
    'podman',
    ['build', '--isolation=chroot', '--network=host', '--format', 'docker', '--build-arg', `BASE_IMAGE=${BASE_IMAGE}`, '-t', IMAGE, '.'],
    { cwd: ROOT, env: podmanEnv, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  writeFileSync(join(CACHE, 'last-build.log'), `${result.stdout}\n${result.stderr}`);
  if (result.status !== 0)
    throw new Error(`podman build failed; its output is in ${join(CACHE, 'last-build.log')}:\n${result.stderr.slice(-4000)}`);
  // The image this build replaced. The stages' images stay: they are the cache that spares the next run npm ci and
  // the SQLite compile (a `podman image prune` removes them too, and the next run then takes about ten minutes).
  if (previous && previous !== imageId(IMAGE)) podman(['rmi', previous], { allowFailure: true });
  const bytes = Number(podman(['image', 'inspect', '--format', '{{.Size}}', IMAGE]).stdout.trim());
  const base = Number(podman(['image', 'inspect', '--format', '{{.Size}}', BASE_IMAGE]).stdout.trim());
  say(
    `image ${IMAGE}: ${(bytes / 1e6).toFixed(0)} MB (its base: ${(base / 1e6).toFixed(0)} MB, so Keyward adds ${((bytes - base) / 1e6).toFixed(0)} MB)`,
  );
  return bytes;
}

function startContainer(name, env, extra = []) {
  podman(['rm', '-f', name], { allowFailure: true });
  const args = ['run', '-d', '--name', name, '--network', 'host', ...extra];
  for (const [key, value] of Object.entries(env)) args.push('-e', `${key}=${value}`);
  podman([...args, IMAGE]);
  if (!process.env.KEEP) cleanups.push(() => podman(['rm', '-f', '-t', '5', name], { allowFailure: true }));
  return name;
}

const logsOf = (name) => {
  const result = podman(['logs', name], { allowFailure: true });
  return `${result.stdout}${result.stderr}`;
};

/** 1. The image alone, as `docker run -p 3000:3000 -v keyward-data:/data keyward` runs it. */
async function testImageAlone() {
  const port = await freePort();
  const volume = `keyward-test-data-${RUN_ID}`;
  podman(['volume', 'create', volume]);
  cleanups.push(() => podman(['volume', 'rm', '-f', volume], { allowFailure: true }));
  const name = startContainer(`keyward-test-${RUN_ID}`, { PORT: String(port) }, ['-v', `${volume}:/data`]);
  const base = `http://127.0.0.1:${port}`;
  const health = await until('/healthz of the container', async () => {
    const response = await fetch(`${base}/healthz`);
    return response.ok ? response.json() : null;
  }).catch((error) => {
    throw new Error(`${error.message}\n--- container log ---\n${logsOf(name)}`);
  });
  check(health.status === 'ok', `the container answers /healthz with ${JSON.stringify(health)}`);
  const page = await fetch(`${base}/`);
  const html = await page.text();
  const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  check(page.status === 200 && asset !== undefined, 'it serves the dashboard at / (index.html naming its script bundle)');
  check((await fetch(`${base}${asset}`)).status === 200, `it serves the dashboard's bundle ${asset}`);
  const uid = podman(['exec', name, 'id', '-u']).stdout.trim();
  check(uid !== '0', `the server runs as a non-root user (uid ${uid})`);
  const dataDir = podman(['exec', name, 'sh', '-c', 'ls /data']).stdout;
  check(/keyward\.db/.test(dataDir) && /secret/.test(dataDir), 'the embedded database and the generated secret are in the /data volume');
  const healthcheck = podman(['healthcheck', 'run', name], { allowFailure: true });
  check(healthcheck.status === 0, `the image's HEALTHCHECK passes (podman healthcheck run: ${healthcheck.status})`);
}

/** compose.yaml as data (python3-yaml ships with podman-compose). */
function readCompose() {
  const json = run('python3', [
    '-c',
    'import json,sys,yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))',
    join(ROOT, 'compose.yaml'),
  ]);
  return JSON.parse(json);
}

/** Compose's ${VAR}, ${VAR:-default} and ${VAR:?message} from the .env values. */
function interpolate(value, vars) {
  return String(value).replace(/\$\{(\w+)(?::?([-?])([^}]*))?\}/g, (_m, name, op, arg) => {
    const set = vars[name] !== undefined && vars[name] !== '';
    if (set) return vars[name];
    if (op === '-') return arg;
    throw new Error(`compose.yaml needs ${name}${op === '?' ? `: ${arg}` : ''}`);
  });
}

/** `KEY=value` lines, as compose reads .env. */
function parseEnvFile(text) {
  const vars = {};
  for (const line of text.split('\n')) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (match) vars[match[1]] = match[2].replace(/^(['"])(.*)\1$/, '$2');
  }
  return vars;
}

function curl(args) {
  return spawnSync('curl', ['--silent', '--show-error', '--max-time', '10', ...args], { encoding: 'utf8' });
}

/** 2. The compose stack: Keyward (with PostgreSQL and Redis) behind Caddy on HTTPS. */
async function testComposeStack() {
  const compose = readCompose();
  for (const service of ['keyward', 'postgres', 'redis', 'caddy']) check(compose.services?.[service], `compose.yaml defines ${service}`);
  for (const [name, service] of Object.entries(compose.services)) {
    check(['unless-stopped', 'always'].includes(service.restart), `${name} restarts by itself (${service.restart})`);
    check(service.healthcheck || name === 'caddy', `${name} has a health check`);
  }

  // The .env a seller makes from .env.example, as docs/deploy.md says.
  const domain = 'keyward.test';
  const example = parseEnvFile(readFileSync(join(ROOT, '.env.example'), 'utf8'));
  const vars = {
    ...example,
    DOMAIN: domain,
    KEYWARD_SECRET: randomBytes(32).toString('hex'),
    POSTGRES_PASSWORD: randomBytes(16).toString('hex'),
  };

  // PostgreSQL and Redis: this host's (no image can be pulled); a database of this run's own.
  const database = `kw_container_${RUN_ID}`;
  run('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-d', 'postgres', '-qc', `CREATE DATABASE ${database}`]);
  cleanups.push(() =>
    spawnSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-d', 'postgres', '-qc', `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`]),
  );

  const port = await freePort();
  const env = {};
  for (const [key, value] of Object.entries(compose.services.keyward.environment ?? {})) env[key] = interpolate(value, vars);
  for (const file of [].concat(compose.services.keyward.env_file ?? [])) {
    check(String(file.path ?? file) === '.env', 'Keyward reads its secrets from .env');
  }
  Object.assign(env, { KEYWARD_SECRET: vars.KEYWARD_SECRET });
  check(env.TRUST_PROXY === '1', `Keyward trusts exactly the one proxy in front of it (TRUST_PROXY=${env.TRUST_PROXY})`);
  check(env.BASE_URL === `https://${domain}`, `BASE_URL is https://$DOMAIN (${env.BASE_URL})`);
  check(
    /@postgres:5432\//.test(env.DATABASE_URL) && /^redis:\/\/redis:6379/.test(env.REDIS_URL),
    'Keyward uses the postgres and redis services',
  );
  env.DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${database}`;
  env.REDIS_URL = 'redis://127.0.0.1:6379';
  env.PORT = String(port);
  const name = startContainer(`keyward-test-compose-${RUN_ID}`, env);
  await until('the compose Keyward to answer', async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok).catch((error) => {
    throw new Error(`${error.message}\n--- container log ---\n${logsOf(name)}`);
  });

  // Caddy from Debian's package with the repository's Caddyfile; its internal CA stands in for a public one.
  const httpsPort = await freePort();
  const httpPort = await freePort();
  const caddyHome = join(WORK, 'caddy');
  mkdirSync(caddyHome, { recursive: true });
  const caddyfile = join(WORK, 'Caddyfile');
  writeFileSync(
    caddyfile,
    `{\n\tlocal_certs\n\tskip_install_trust\n\tadmin off\n\thttp_port ${httpPort}\n\thttps_port ${httpsPort}\n}\nimport ${join(ROOT, 'Caddyfile')}\n`,
  );
  const caddy = spawn('caddy', ['run', '--config', caddyfile, '--adapter', 'caddyfile'], {
    env: {
      ...process.env,
      DOMAIN: domain,
      KEYWARD_UPSTREAM: `127.0.0.1:${port}`,
      XDG_DATA_HOME: caddyHome,
      XDG_CONFIG_HOME: caddyHome,
      HOME: caddyHome,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let caddyLog = '';
  caddy.stdout.on('data', (chunk) => (caddyLog += chunk));
  caddy.stderr.on('data', (chunk) => (caddyLog += chunk));
  if (!process.env.KEEP) cleanups.push(() => caddy.kill('SIGTERM'));
  const rootCert = join(caddyHome, 'caddy/pki/authorities/local/root.crt');
  const url = (path) => `https://${domain}:${httpsPort}${path}`;
  const tls = ['--cacert', rootCert, '--resolve', `${domain}:${httpsPort}:127.0.0.1`];
  await until('Caddy to serve https', () => existsSync(rootCert) && curl([...tls, '--fail', url('/healthz')]).status === 0, 60_000).catch(
    (error) => {
      throw new Error(`${error.message}\n--- caddy log ---\n${caddyLog}`);
    },
  );
  const health = curl([...tls, '--fail', url('/healthz')]);
  check(
    health.stdout.includes('"ok"'),
    `https://${domain}/healthz answers through Caddy with a certificate its internal CA signed (curl --cacert)`,
  );
  const issuer = curl([...tls, '-v', '-o', '/dev/null', url('/')]).stderr;
  check(/issuer: CN=Caddy Local Authority/.test(issuer), 'the certificate is issued by Caddy Local Authority');
  const redirect = curl([
    '-o',
    '/dev/null',
    '-w',
    '%{http_code} %{redirect_url}',
    '--resolve',
    `${domain}:${httpPort}:127.0.0.1`,
    `http://${domain}:${httpPort}/`,
  ]);
  check(/^30[18] https:\/\//.test(redirect.stdout), `plain http redirects to https (${redirect.stdout})`);

  // The first account, as the guide makes it, then an audited action from a client address that is not Caddy's.
  const created = JSON.parse(
    podman([
      'exec',
      name,
      'keyward',
      'account',
      'create',
      '--username',
      'admin',
      '--password',
      'container-test-password',
      '--role',
      'admin',
      '--json',
    ]).stdout,
  );
  check(typeof created.accountKey === 'string', 'keyward account create works in the container');
  const clientAddress = '127.0.0.2';
  const service = curl([
    ...tls,
    '--interface',
    clientAddress,
    '-H',
    `x-api-key: ${created.accountKey}`,
    '-H',
    'content-type: application/json',
    // A client may write anything here; Caddy replaces it, and Keyward trusts only Caddy's word.
    '-H',
    'x-forwarded-for: 6.6.6.6',
    '-d',
    '{"name":"Container test"}',
    url('/api/v1/services'),
  ]);
  check(JSON.parse(service.stdout).success === true, 'a service is created over HTTPS from 127.0.0.2');
  const audit = JSON.parse(
    curl([...tls, '-H', `x-api-key: ${created.accountKey}`, url('/api/v1/account/audit?action=service.create')]).stdout,
  );
  const ips = audit.data.items.map((entry) => entry.ip);
  check(
    ips.length === 1 && ips[0] === clientAddress,
    `the audit log holds the client's address ${clientAddress}, not Caddy's 127.0.0.1 or the forged one (got ${ips})`,
  );
}

try {
  ensureBaseImage();
  buildImage();
  await testImageAlone();
  await testComposeStack();
  say(`passed in ${elapsed()}`);
} catch (error) {
  console.error(`[test:container ${elapsed()}] ${error.stack ?? error}`);
  process.exitCode = 1;
} finally {
  for (const cleanup of cleanups.reverse()) {
    try {
      cleanup();
    } catch {
      // best effort: a failed cleanup must not hide the test's own result
    }
  }
  rmSync(WORK, { recursive: true, force: true });
}
