import { generateAuthKey } from '@kyc/delivery-engine';
import { Hono } from 'hono';
import { html } from 'hono/html';
import { actionErrorStatus } from '../api/portal-routes.js';
import { PAYLOAD_SHAPES, type PayloadShape } from '../domain/enum-values.js';
import { maskedAuthKey } from '../domain/masked-auth-key.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../portal/portal-action-store.js';
import { PortalActionError, type PortalService } from '../portal/portal-service.js';
import type { SandboxService, SettingsProblem } from '../sandbox-service.js';
import type { SigningSecretService } from '../signing/signing-secret-service.js';
import type { CompanyRecord } from '../store/sandbox-store.js';
import type { DashboardVariables } from './dashboard-auth.js';
import { forwardingBanner } from './forwarding-banner.js';
import { csrfField, type Html, layout } from './layout.js';
import { signingSecretPages, signingSecretSection } from './signing-secret-routes.js';
import { testEventAnswer, testEventForm } from './test-event-form.js';

interface EditState {
  readonly webhookUrl: string;
  /** A key to show in the field: only a freshly generated or just-rejected one, never the stored key. */
  readonly authKey: string;
  readonly hasAuthKey: boolean;
  readonly problems: readonly SettingsProblem[];
  readonly notice?: string;
}

function fieldError(problems: readonly SettingsProblem[], field: SettingsProblem['field']): Html | string {
  const problem = problems.find((p) => p.field === field);
  return problem ? html`<p class="error" role="alert" id="${field}-error">${problem.message}</p>` : '';
}

function editForm(csrfToken: string, state: EditState): Html {
  return html`<form method="post" action="/dashboard/settings/company">
${csrfField(csrfToken)}
<section><h2>My company</h2>
<fieldset><legend>Products</legend>
<h3>Traditional KYC</h3>
<label for="webhookUrl">Webhook URL</label>
<input type="url" id="webhookUrl" name="webhookUrl" value="${state.webhookUrl}" placeholder="https://your-server.example/kyc/webhook">
${fieldError(state.problems, 'webhookUrl')}
<label for="authKey">Auth Key</label>
<input type="text" id="authKey" name="authKey" value="${state.authKey}" autocomplete="off" spellcheck="false"
 placeholder="${state.hasAuthKey ? 'A key is set; leave empty to keep it' : 'At least 16 characters, not predictable'}">
${fieldError(state.problems, 'authKey')}
<p><button type="submit" name="action" value="generate">Generate</button>
<label style="display:inline;font-weight:normal"><input type="checkbox" name="removeAuthKey" value="1"> Remove the Auth Key</label></p>
</fieldset>
${state.notice ? html`<p class="notice" role="status">${state.notice}</p>` : ''}
<p><button type="submit" name="action" value="save">Save changes</button> <a href="/dashboard/settings">Cancel</a></p>
</section></form>`;
}

/** Settings → My company → Edit → Products → Traditional KYC: the webhook URL, Auth Key and signing secret. */
export function settingsRoutes(
  service: SandboxService,
  portal: PortalService,
  signing: SigningSecretService,
): Hono<{ Variables: DashboardVariables }> {
  const app = new Hono<{ Variables: DashboardVariables }>();
  app.route('/', signingSecretPages(signing));
  const nav = (c: { get(key: 'csrfToken'): string; get(key: 'user'): { username: string } }) => ({
    csrfToken: c.get('csrfToken'),
    username: c.get('user').username,
  });

  const settingsPage = (
    c: Parameters<typeof nav>[0] & {
      get(key: 'company'): CompanyRecord;
      req: { query(name: string): string | undefined };
    },
    testAnswer: Html | string,
    shape?: PayloadShape,
  ) => {
    const company = c.get('company');
    const settings = service.settings(company);
    const saved = c.req.query('saved') === '1';
    return layout(
      'Settings',
      html`<section><h2>My company</h2><p><strong>${company.name}</strong></p>
${saved ? html`<p class="notice" role="status">Changes saved.</p>` : ''}
<h3>Products · Traditional KYC</h3>
<table><tr><th>Webhook URL</th><td id="current-webhook-url">${settings.webhookUrl ?? 'not set'}</td></tr>
<tr><th>Auth Key</th><td id="current-auth-key">${company.authKey === undefined ? 'not set' : `set, ends in ${maskedAuthKey(company.authKey)}`}</td></tr></table>
<p><a href="/dashboard/settings/company/edit">Edit</a></p>
${forwardingBanner(portal.forwarding({ companyId: company.id }))}</section>
${signingSecretSection(c.get('csrfToken'), signing.status(company.id), signing.now(), c.req.query('signing'))}
${testEventForm(c.get('csrfToken'), testAnswer, shape)}`,
      nav(c),
    );
  };

  app.get('/dashboard/settings', (c) => {
    const key = c.req.query('test');
    const user = c.get('user');
    const result = key
      ? portal.actionResult({ companyId: user.companyId, userId: user.id, username: user.username }, key)
      : undefined;
    return c.html(
      result?.action === 'test_event'
        ? settingsPage(
            c,
            testEventAnswer(result),
            PAYLOAD_SHAPES.find((shape) => shape === result.shape),
          )
        : settingsPage(c, ''),
    );
  });

  app.post('/dashboard/settings/test-event', async (c) => {
    const form = await c.req.parseBody();
    const shape = PAYLOAD_SHAPES.find((s) => s === form.shape);
    const key = typeof form._click === 'string' ? form._click : '';
    if (!shape || !IDEMPOTENCY_KEY_PATTERN.test(key)) return c.text('Choose a payload shape and send again.', 422);
    const user = c.get('user');
    try {
      await portal.sendTestEvent({ companyId: user.companyId, userId: user.id, username: user.username }, shape, key);
    } catch (error) {
      if (!(error instanceof PortalActionError)) throw error;
      const alert = html`<p class="error" role="alert">${error.message}</p>`;
      return c.html(settingsPage(c, alert, shape), actionErrorStatus(error));
    }
    return c.redirect(`/dashboard/settings?test=${encodeURIComponent(key)}`, 303);
  });

  app.get('/dashboard/settings/company/edit', (c) => {
    const settings = service.settings(c.get('company'));
    const state = { webhookUrl: settings.webhookUrl ?? '', authKey: '', hasAuthKey: settings.hasAuthKey, problems: [] };
    return c.html(layout('Edit my company', editForm(c.get('csrfToken'), state), nav(c)));
  });

  app.post('/dashboard/settings/company', async (c) => {
    const form = await c.req.parseBody();
    const company = c.get('company');
    const webhookUrl = typeof form.webhookUrl === 'string' ? form.webhookUrl.trim() : '';
    const typedKey = typeof form.authKey === 'string' ? form.authKey.trim() : '';
    const hasAuthKey = company.authKey !== undefined;
    if (form.action === 'generate') {
      const state = { webhookUrl, authKey: generateAuthKey(), hasAuthKey, problems: [] };
      const notice = 'A new key was generated. Copy it to your server, then save changes.';
      return c.html(layout('Edit my company', editForm(c.get('csrfToken'), { ...state, notice }), nav(c)));
    }
    const authKey = form.removeAuthKey === '1' ? null : typedKey === '' ? undefined : typedKey;
    const problems = await service.updateSettings(company.id, {
      webhookUrl: webhookUrl === '' ? null : webhookUrl,
      authKey,
    });
    if (problems.length > 0) {
      const state = { webhookUrl, authKey: typedKey, hasAuthKey, problems };
      return c.html(layout('Edit my company', editForm(c.get('csrfToken'), state), nav(c)), 422);
    }
    return c.redirect('/dashboard/settings?saved=1', 303);
  });

  return app;
}
