import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The ALTCHA widget, served by the app from the installed `altcha` package (no CDN, no build step).
 * The UMD build registers <altcha-widget> when loaded as a classic script.
 */
let widget: string | undefined;
export function altchaWidgetSource(): string {
  widget ??= readFileSync(createRequire(import.meta.url).resolve('altcha'), 'utf8');
  return widget;
}

/** The page's own script: fetch a challenge, mount the widget, post the solved payload with the key. */
export const RESET_PAGE_SCRIPT = `'use strict';
(function () {
  var form = document.getElementById('reset-form');
  var result = document.getElementById('result');
  var holder = document.getElementById('captcha');
  var service = form.getAttribute('data-service');
  var payload = null;

  function show(ok, text) {
    result.hidden = false;
    result.className = 'result ' + (ok ? 'ok' : 'fail');
    result.textContent = text;
  }

  function mountCaptcha() {
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
  }

  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    var key = document.getElementById('key').value.trim();
    if (!key) return show(false, 'Enter your key.');
    if (!payload) return show(false, 'Complete the captcha first.');
    fetch('/api/v1/public/reset-hwid', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ service: service, key: key, captcha: payload }),
    })
      .then(function (r) { return r.json(); })
      .then(function (body) {
        if (body.success) show(true, 'Your HWID was reset. Next reset possible at ' + new Date(body.data.nextResetAt).toLocaleString() + '.');
        else show(false, body.error);
      })
      .catch(function () { show(false, 'The request failed; try again.'); })
      .then(mountCaptcha);
  });

  mountCaptcha();
})();
`;
