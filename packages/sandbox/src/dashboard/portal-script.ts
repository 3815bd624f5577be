/** Where the dashboard's one script is served (same origin, so the CSP allows only `'self'`). */
export const PORTAL_SCRIPT_PATH = '/dashboard/assets/portal.js';

/**
 * The dashboard's only JavaScript, a progressive enhancement: every page works without it.
 * It shows the "Copy body" buttons and keeps the Deliveries table live: on each server-sent
 * `change`, and once when the event stream (re)connects, it fetches the same URL's rows,
 * rendered and escaped by the server, and swaps them in.
 */
export const PORTAL_SCRIPT = `'use strict';
document.querySelectorAll('[data-copy]').forEach(function (button) {
  button.hidden = false;
  button.addEventListener('click', function () {
    var source = document.getElementById(button.getAttribute('data-copy'));
    var status = document.getElementById(button.getAttribute('aria-describedby'));
    if (!source || !navigator.clipboard) return;
    navigator.clipboard.writeText(source.textContent).then(function () {
      if (status) status.textContent = 'Body copied.';
    }, function () {
      if (status) status.textContent = 'Copying failed: select the body and copy it by hand.';
    });
  });
});
var live = document.querySelector('[data-live]');
if (live && window.EventSource) {
  var timer;
  var announce = document.getElementById('live-status');
  var refresh = function () {
    var url = new URL(location.href);
    url.searchParams.set('fragment', 'rows');
    fetch(url, { credentials: 'same-origin' }).then(function (answer) {
      if (!answer.ok) return;
      return answer.text().then(function (rows) {
        live.innerHTML = rows;
        // In UTC, like every time in the table beside it.
        if (announce) announce.textContent = 'Updated ' + new Date().toISOString().slice(11, 19) + ' UTC.';
      });
    });
  };
  var changes = new EventSource(live.getAttribute('data-live'));
  changes.addEventListener('change', function () {
    clearTimeout(timer);
    timer = setTimeout(refresh, 150);
  });
  // A change between the page's render and this connection (or during a reconnect) sent no
  // event this page saw: catch up once on every (re)connection.
  changes.addEventListener('open', refresh);
}
`;
