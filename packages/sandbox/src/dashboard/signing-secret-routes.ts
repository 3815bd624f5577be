import { Hono } from 'hono';
import { html } from 'hono/html';
import { SigningSecretError, type SigningSecretService } from '../signing/signing-secret-service.js';
import { ageText, type SigningSecretStatus } from '../signing/signing-secret-views.js';
import type { DashboardVariables } from './dashboard-auth.js';
import { csrfField, type Html, layout } from './layout.js';

/** Where the settings page's signing-secret forms post. */
export const SIGNING_PAGES = Object.freeze({
  create: '/dashboard/settings/signing-secret/create',
  rotate: '/dashboard/settings/signing-secret/rotate',
  endOverlap: '/dashboard/settings/signing-secret/end-overlap',
  remove: '/dashboard/settings/signing-secret/remove',
  reveal: '/dashboard/settings/signing-secret/reveal',
});

/** The overlaps the rotate form offers (hours); 24, Svix's and Stripe's default, is preselected. */
const OVERLAP_HOURS: readonly [number, string][] = [
  [0, 'End now (the old secret stops at once)'],
  [1, '1 hour'],
  [24, '24 hours'],
  [72, '3 days'],
  [168, '7 days'],
];

const NOTICES: Readonly<Record<string, string>> = {
  created: 'A signing secret was created. Reveal it to copy it to your server: every delivery is signed from now on.',
  rotated:
    'A new signing secret was made. Both secrets sign every delivery until the old one stops: add the new one to your server, then remove the old.',
  ended: 'The old secret no longer signs: deliveries carry only the current signature.',
  removed: 'Signing is off: deliveries carry no webhook-signature.',
};

function form(action: string, csrfToken: string, content: Html | string): Html {
  return html`<form method="post" action="${action}" style="display:inline">${csrfField(csrfToken)}${content}</form>`;
}

/**
 * The signing-secret part of Settings: each active secret's label, age and, for the old one of
 * a rotation, when it stops signing; and the buttons (create, reveal, rotate with an overlap,
 * end the overlap, remove). Never a secret's value: that is on the reveal page only.
 */
export function signingSecretSection(
  csrfToken: string,
  status: SigningSecretStatus,
  now: number,
  notice: string | undefined,
): Html {
  const message = notice && NOTICES[notice];
  const rows = status.secrets.map((s) => {
    const stops =
      s.stopsAt === null ? '' : `stops signing at ${s.stopsAt} (in ${ageText(Date.parse(s.stopsAt) - now)})`;
    return html`<tr data-label="${s.label}"><td><code>${s.label}</code> (${s.role})</td>
<td>created ${ageText(now - Date.parse(s.createdAt))} ago (${s.createdAt})</td><td>${stops}</td></tr>`;
  });
  const overlap = status.secrets.some((s) => s.role === 'previous');
  const options = OVERLAP_HOURS.map(
    ([hours, text]) => html`<option value="${hours}" ${hours === 24 ? 'selected' : ''}>${text}</option>`,
  );
  return html`<section id="signing-secret"><h2>Signing secret</h2>
<p class="muted">Every delivery carries <code>webhook-signature</code> (Standard Webhooks), made with this secret. Verify it on your server beside the Auth Key.</p>
${message ? html`<p class="notice" role="status">${message}</p>` : ''}
${
  status.signing
    ? html`<table id="signing-secrets"><tr><th>Secret</th><th>Age</th><th>Overlap</th></tr>${rows}</table>
<p><a href="${SIGNING_PAGES.reveal}">Reveal…</a> (asks for your password)</p>
${form(
  SIGNING_PAGES.rotate,
  csrfToken,
  html`<label for="overlapHours">Keep the old secret signing for</label>
<select id="overlapHours" name="overlapHours">${options}</select> <button type="submit">Rotate</button>`,
)}
<p>${overlap ? form(SIGNING_PAGES.endOverlap, csrfToken, html`<button type="submit">Stop the old secret now</button>`) : ''}
${form(SIGNING_PAGES.remove, csrfToken, html`<button type="submit">Remove (stop signing)</button>`)}</p>`
    : html`<p id="signing-off">Not set: deliveries are not signed.</p>
${form(SIGNING_PAGES.create, csrfToken, html`<button type="submit">Create a signing secret</button>`)}`
}</section>`;
}

function revealForm(csrfToken: string, error: string | undefined): Html {
  return html`<section><p>Enter your password again to see the signing secrets.</p>
<form method="post" action="${SIGNING_PAGES.reveal}">${csrfField(csrfToken)}
<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required>
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<p><button type="submit">Reveal</button> <a href="/dashboard/settings">Cancel</a></p></form></section>`;
}

/** The signing-secret actions of the portal; each ends on the settings page, the reveal on its own. */
export function signingSecretPages(signing: SigningSecretService): Hono<{ Variables: DashboardVariables }> {
  const app = new Hono<{ Variables: DashboardVariables }>();
  const nav = (c: { get(key: 'csrfToken'): string; get(key: 'user'): { username: string } }) => ({
    csrfToken: c.get('csrfToken'),
    username: c.get('user').username,
  });
  const back = (notice: string) => `/dashboard/settings?signing=${notice}#signing-secret`;
  const refusal = (error: unknown) => {
    if (error instanceof SigningSecretError) return error.message;
    throw error;
  };

  app.post(SIGNING_PAGES.create, (c) => {
    try {
      signing.create(c.get('company').id);
    } catch (error) {
      return c.text(refusal(error), 409);
    }
    return c.redirect(back('created'), 303);
  });

  app.post(SIGNING_PAGES.rotate, async (c) => {
    const hours = Number((await c.req.parseBody()).overlapHours ?? 24);
    try {
      signing.rotate(c.get('company').id, Math.round(hours * 3_600_000));
    } catch (error) {
      return c.text(refusal(error), 409);
    }
    return c.redirect(back('rotated'), 303);
  });

  app.post(SIGNING_PAGES.endOverlap, (c) => {
    signing.endOverlap(c.get('company').id);
    return c.redirect(back('ended'), 303);
  });

  app.post(SIGNING_PAGES.remove, (c) => {
    signing.remove(c.get('company').id);
    return c.redirect(back('removed'), 303);
  });

  app.get(SIGNING_PAGES.reveal, (c) =>
    c.html(layout('Reveal the signing secret', revealForm(c.get('csrfToken'), undefined), nav(c))),
  );

  app.post(SIGNING_PAGES.reveal, async (c) => {
    const password = (await c.req.parseBody()).password;
    let secrets: Awaited<ReturnType<SigningSecretService['reveal']>>;
    try {
      secrets = await signing.reveal(c.get('user'), typeof password === 'string' ? password : '');
    } catch (error) {
      const page = layout('Reveal the signing secret', revealForm(c.get('csrfToken'), refusal(error)), nav(c));
      return c.html(page, error instanceof SigningSecretError && error.code === 'throttled' ? 429 : 403);
    }
    const rows = secrets.map(
      (
        s,
      ) => html`<tr><td><code>${s.label}</code> (${s.role})</td><td><code id="secret-${s.label}">${s.secret}</code></td>
<td>${s.stopsAt === null ? '' : `stops signing at ${s.stopsAt}`}</td></tr>`,
    );
    const content = html`<section>${
      secrets.length === 0
        ? html`<p>No signing secret is set.</p>`
        : html`<p>Copy the secret to your server (for example <code>KYC_SIGNING_SECRETS</code>); during a rotation, both.</p>
<table id="revealed-secrets">${rows}</table>`
    }<p><a href="/dashboard/settings">Back to Settings</a></p></section>`;
    return c.html(layout('Signing secret', content, nav(c)));
  });

  return app;
}
