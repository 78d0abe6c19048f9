import type { ServiceRow } from '../services/services.service.ts';
import { escapeHtml, htmlPage } from '../../lib/html.ts';
import { iso } from '../../lib/time.ts';
import type { SessionRow } from './key-system.repository.ts';
import type { KeySystemSettings } from './key-system.service.ts';
import { scriptKeyLine } from '../scripts/scripts.service.ts';

/** Server-rendered pages of the key system; one small script (no inline code, no CDN) drives them. */

const HEAD = '<script src="/reset/assets/altcha.js" defer></script>\n<script src="/key/assets/key-system.js" defer></script>';
/** The dashboard's look (Mantine's palette and radius), in the seller's accent colour, light or dark as the visitor's system. */
const STYLE = `<style>
:root { --accent: #228be6; --text: #1d1d1f; --dimmed: #6b6f76; --card: #fff; --page: #f1f3f5; --border: #dee2e6; --code: #f1f3f5; }
@media (prefers-color-scheme: dark) {
  :root { --text: #e9ecef; --dimmed: #909296; --card: #25262b; --page: #1a1b1e; --border: #373a40; --code: #2c2e33; }
}
html { background: var(--page); }
body { color: var(--text); max-width: 30rem; margin: 0 auto; padding: 2.5rem 1rem; line-height: 1.5; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
main { background: var(--card); border: 1px solid var(--border); border-radius: 8px; padding: 1.25rem 1.5rem; box-shadow: 0 1px 3px rgba(0,0,0,.06); }
.progress { font-weight: 600; margin-top: 0; }
.bar { height: 6px; border-radius: 3px; background: var(--border); overflow: hidden; margin: -.5rem 0 1rem; }
.bar > span { display: block; height: 100%; background: var(--accent); }
.key { display: block; padding: .75rem; background: var(--code); border-radius: 4px; font-size: 1.05rem; word-break: break-all; }
.hint { color: var(--dimmed); font-size: .9rem; }
code { background: var(--code); border-radius: 4px; padding: 0 .25rem; }
button, a.button { display: inline-block; margin-top: 1rem; padding: .55rem 1.1rem; border: 0; border-radius: 4px; background: var(--accent);
  color: #fff; font: inherit; font-weight: 600; text-decoration: none; cursor: pointer; }
button:hover, a.button:hover { filter: brightness(.92); }
button:focus-visible, a.button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
button.secondary { background: transparent; color: var(--accent); border: 1px solid var(--accent); margin-left: .5rem; }
a { color: var(--accent); }
.result { margin-top: 1rem; padding: .75rem; border-radius: 4px; }
.ok { background: rgba(64,192,87,.15); } .fail { background: rgba(250,82,82,.15); } .wait { background: var(--code); }
</style>`;

/** The accent colour, stored as #rrggbb (checked on save), so it is safe inside the style element. */
const accentStyle = (settings: KeySystemSettings) =>
  settings.accentColor && /^#[0-9a-f]{6}$/i.test(settings.accentColor) ? `<style>:root { --accent: ${settings.accentColor}; }</style>` : '';

const bar = (done: number, total: number) =>
  `<div class="bar" role="progressbar" aria-label="Checkpoints passed" aria-valuemin="0" aria-valuemax="${total}" aria-valuenow="${done}"><span style="width:${Math.round((done / Math.max(1, total)) * 100)}%"></span></div>`;

const titleOf = (service: ServiceRow, settings: KeySystemSettings) => settings.pageTitle || `Get a key · ${service.name}`;

export const notFoundPage = () =>
  htmlPage(
    'Key system not found',
    '<h1>Key system not found</h1><p>This get-key page does not exist or is turned off. Check the link you were given.</p>',
  );

export function keyPage(service: ServiceRow, settings: KeySystemSettings, session: SessionRow | null): string {
  const title = titleOf(service, settings);
  const heading = `<h1>${escapeHtml(title)}</h1>`;
  const attrs = `data-service="${escapeHtml(service.identifier)}"`;
  let body: string;
  if (session?.key) {
    body = `<main id="ks" data-mode="done" ${attrs}>
<p class="progress" id="progress">All ${session.checkpoints} checkpoints passed</p>
${bar(session.checkpoints, session.checkpoints)}
<p>Your key:</p>
<code class="key" id="key">${escapeHtml(session.key)}</code>
<button type="button" id="copy">Copy key</button>
<p>Valid until <time id="expires" datetime="${iso(session.keyExpiresAt)}">${iso(session.keyExpiresAt)}</time>.</p>
<p>Where the key goes: put this line above the script's loadstring, in the same script.</p>
<code class="key" id="snippet">${escapeHtml(scriptKeyLine(session.key))}</code>
<button type="button" id="copy-line">Copy line</button>
<div id="result" class="result" role="status" hidden></div>
</main>`;
  } else if (session?.nextUrl) {
    body = `<main id="ks" data-mode="progress" ${attrs}>
<p class="progress" id="progress">Checkpoint ${session.checkpoint + 1} of ${session.checkpoints}</p>
${bar(session.checkpoint, session.checkpoints)}
<a class="button" id="next" href="${escapeHtml(session.nextUrl)}" rel="noreferrer">Continue to checkpoint ${session.checkpoint + 1}</a>
<p><a href="/key/${escapeHtml(service.identifier)}?restart=1">Start over</a></p>
<div id="result" class="result" role="status" hidden></div>
</main>`;
  } else {
    body = `<main id="ks" data-mode="start" ${attrs}>
<p class="progress" id="progress">Checkpoint 1 of ${settings.checkpoints}</p>
${bar(0, settings.checkpoints)}
<p>Pass ${settings.checkpoints === 1 ? 'one checkpoint' : `${settings.checkpoints} checkpoints`} to get a key valid for ${settings.keyHours} hours.
</p>
<p class="hint">Your script then needs the line <code>${escapeHtml(scriptKeyLine())}</code> above its loadstring, with your key in place of KEY_HERE.</p>
<div id="captcha"></div>
<button type="button" id="start">Get key</button>
<div id="result" class="result" role="status" hidden></div>
</main>`;
  }
  return htmlPage(title, heading + '\n' + body, STYLE + accentStyle(settings) + '\n' + HEAD);
}

/** Where the provider sends the user back: the page posts the provider's token for the session. */
export function returnPage(service: ServiceRow, settings: KeySystemSettings, sessionId: string, token: string | null): string {
  const title = titleOf(service, settings);
  return htmlPage(
    title,
    `<h1>${escapeHtml(title)}</h1>
<main id="ks" data-mode="return" data-service="${escapeHtml(service.identifier)}" data-session="${escapeHtml(sessionId)}"${settings.provider === 'none' ? ' data-countdown="1"' : ''}${token ? ` data-token="${escapeHtml(token)}"` : ''}>
<p class="progress" id="progress">Checking your checkpoint…</p>
<div id="result" class="result" role="status" hidden></div>
<a class="button" id="next" href="/key/${escapeHtml(service.identifier)}" hidden>Continue</a>
<button type="button" id="retry" hidden>Try again</button>
</main>`,
    STYLE + accentStyle(settings) + '\n' + HEAD,
  );
}

export const KEY_SYSTEM_SCRIPT = `'use strict';
(function () {
  var root = document.getElementById('ks');
  if (!root) return;
  var service = root.getAttribute('data-service');
  var mode = root.getAttribute('data-mode');
  var result = document.getElementById('result');
  var progress = document.getElementById('progress');
  var api = '/api/v1/public/key-system/' + encodeURIComponent(service) + '/sessions';

  function show(ok, text) {
    result.hidden = false;
    result.className = 'result ' + (ok ? 'ok' : 'fail');
    result.textContent = text;
  }
  // Times are shown in the user's own time zone (the server sends UTC).
  function localTime(iso) {
    return new Date(iso).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });
  }
  function refusal(body) {
    if (body.code === 'KEY_SYSTEM_LIMIT' && body.nextKeyAt) {
      return 'You have earned the most keys allowed today; the next key can be earned at ' + localTime(body.nextKeyAt) + '.';
    }
    return body.error;
  }
  function post(url, body) {
    return fetch(url, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      .then(function (r) { return r.json(); });
  }

  if (mode === 'start') {
    var holder = document.getElementById('captcha');
    var payload = null;
    var mount = function () {
      payload = null;
      holder.textContent = '';
      fetch('/api/v1/auth/captcha', { cache: 'no-store' })
        .then(function (r) { return r.json(); })
        .then(function (body) {
          var widget = document.createElement('altcha-widget');
          widget.setAttribute('challengejson', JSON.stringify(body.data));
          widget.setAttribute('hidelogo', '');
          widget.setAttribute('hidefooter', '');
          widget.addEventListener('statechange', function (ev) {
            payload = ev.detail && ev.detail.state === 'verified' ? ev.detail.payload : null;
          });
          holder.appendChild(widget);
        })
        .catch(function () { show(false, 'Could not load the captcha; reload the page.'); });
    };
    document.getElementById('start').addEventListener('click', function () {
      if (!payload) return show(false, 'Complete the captcha first.');
      post(api, { captcha: payload })
        .then(function (body) {
          if (body.success) window.location.href = body.data.next;
          else { show(false, refusal(body)); mount(); }
        })
        .catch(function () { show(false, 'The request failed; try again.'); mount(); });
    });
    mount();
  }

  if (mode === 'done') {
    var expires = document.getElementById('expires');
    expires.textContent = localTime(expires.getAttribute('datetime'));
    var copier = function (id, what) {
      return function () {
        var node = document.getElementById(id);
        var done = function () { show(true, what + ' copied.'); };
        var failed = function () { show(false, 'Copy failed; select the ' + what.toLowerCase() + ' and copy it.'); };
        if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(node.textContent).then(done, failed);
        else {
          var range = document.createRange();
          range.selectNodeContents(node);
          var selection = window.getSelection();
          selection.removeAllRanges();
          selection.addRange(range);
          if (document.execCommand('copy')) done(); else failed();
        }
      };
    };
    document.getElementById('copy').addEventListener('click', copier('key', 'Key'));
    document.getElementById('copy-line').addEventListener('click', copier('snippet', 'Line'));
  }

  if (mode === 'return') {
    var next = document.getElementById('next');
    var retry = document.getElementById('retry');
    var session = root.getAttribute('data-session');
    var token = root.getAttribute('data-token');
    // Provider none: there is no ad to sit through, so the minimum time is waited out here.
    var patient = root.getAttribute('data-countdown') === '1';
    var check = function () {
      retry.hidden = true;
      post(api + '/' + encodeURIComponent(session) + '/checkpoint', token ? { token: token } : {})
        .then(function (body) {
          if (body.success && body.data.key) return window.location.replace('/key/' + encodeURIComponent(service));
          if (body.success) {
            progress.textContent = 'Checkpoint ' + (body.data.checkpoint + 1) + ' of ' + body.data.checkpoints;
            show(true, 'Checkpoint ' + body.data.checkpoint + ' passed.');
            next.href = body.data.next;
            next.textContent = 'Continue to checkpoint ' + (body.data.checkpoint + 1);
            next.hidden = false;
            return;
          }
          // Too early with provider none (it sends the visitor straight back): count the rest down and check
          // again, rather than greet every first visitor with a failure.
          if (patient && body.reason === 'too-fast' && body.retryAfter > 0) return countdown(body.retryAfter);
          progress.textContent = 'Checkpoint not passed';
          show(false, refusal(body));
          if (body.reason === 'too-fast' || body.code === 'PROVIDER_UNAVAILABLE') retry.hidden = false;
          else { next.textContent = 'Back to the get-key page'; next.hidden = false; }
        })
        .catch(function () { show(false, 'The request failed; try again.'); retry.hidden = false; });
    };
    var countdown = function (seconds) {
      var left = Math.ceil(seconds);
      var tick = function () {
        if (left <= 0) return check();
        result.hidden = false;
        result.className = 'result wait';
        result.textContent = 'Please wait ' + left + ' second' + (left === 1 ? '' : 's') + '…';
        left -= 1;
        setTimeout(tick, 1000);
      };
      tick();
    };
    retry.addEventListener('click', check);
    check();
  }
})();
`;
