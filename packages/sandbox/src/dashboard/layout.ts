import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { PORTAL_SCRIPT_PATH } from './portal-script.js';

/** Rendered HTML; every interpolated value is escaped by Hono's `html` template. */
export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

// Form fields are 16 px and at least 2rem tall: iOS Safari zooms the page into a smaller field
// on focus, and WCAG 2.2 asks for targets of at least 24 px.
const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2433;background:#f6f7fb}
header{background:#1d2433;color:#fff;padding:.6rem 1.2rem;display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;align-items:center}
header nav{display:flex;flex-wrap:wrap;gap:.2rem 1.2rem}header form{margin-left:auto}
header a,header button{color:#fff;text-decoration:none;background:none;border:0;font:inherit;cursor:pointer}
main{max-width:1100px;margin:1.2rem auto;padding:0 1.2rem}
section,fieldset{background:#fff;border:1px solid #d8dce6;border-radius:6px;padding:1rem;margin-bottom:1rem}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #e3e6ee;padding:.35rem .5rem;text-align:left;vertical-align:top}
label{display:block;margin:.6rem 0 .2rem;font-weight:600}input[type=text],input[type=url],input[type=password]{width:100%;max-width:40rem;padding:.4rem}
.error{color:#a11;margin:.3rem 0}.notice{color:#175;margin:.3rem 0}.muted{color:#667}
code,pre{font-size:13px;white-space:pre-wrap;word-break:break-all}
button{padding:.35rem .8rem;margin-right:.4rem;min-height:2rem}
input:not([type=checkbox]):not([type=radio]),select,textarea{font-size:16px;min-height:2rem;box-sizing:border-box}
.badge{display:inline-block;padding:0 .45rem;border-radius:1rem;border:1px solid;font-size:13px;font-weight:600}
.b-delivered{color:#0b5d2a;background:#e3f6ea}.b-failed,.b-not_sent{color:#8a1111;background:#fde8e8}
.b-pending,.b-queued{color:#6b4800;background:#fff3d6}.b-test{color:#273b8a;background:#e6ebfb}
.filters{display:flex;flex-wrap:wrap;gap:.2rem 1rem;align-items:end}.filters label{margin-top:0}
.pager{display:flex;gap:1rem;margin-top:.6rem}.fix{color:#5a3b00}
.scroll{overflow-x:auto}.scroll:focus{outline:3px solid #3a6ff7}svg text{font-size:10px;fill:#445}
@media (max-width:640px){main{padding:0 .6rem}section,fieldset{padding:.7rem}
table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
table.stack tr{display:block;border-bottom:1px solid #d8dce6;padding:.3rem 0}
table.stack td{display:flex;gap:.6rem;border:0;padding:.15rem .2rem;overflow-wrap:anywhere}
table.stack td::before{content:attr(data-label);font-weight:600;flex:0 0 6.5rem}table.stack td:empty{display:none}
table.stack pre{margin:0;min-width:0}}
a:focus,button:focus,input:focus,select:focus{outline:3px solid #3a6ff7;outline-offset:1px}
`;

/** The page frame: navigation when logged in, then the page's content. */
export function layout(
  title: string,
  content: Html,
  nav?: { csrfToken: string; username: string },
  heading: Html | string = title,
): Html {
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} · KYC sandbox</title><style>${STYLE}</style>${
    nav ? html`<script src="${PORTAL_SCRIPT_PATH}" defer></script>` : ''
  }</head>
<body>
<header><strong>KYC sandbox</strong>${
    nav
      ? html`<nav aria-label="Main"><a href="/dashboard/sessions">Sessions</a><a href="/dashboard/deliveries">Deliveries</a>
<a href="/dashboard/health">Endpoint health</a><a href="/dashboard/settings">Settings</a></nav>
<form method="post" action="/logout"><span>${nav.username}</span> ${csrfField(nav.csrfToken)}<button type="submit">Log out</button></form>`
      : ''
  }</header>
<main><h1>${heading}</h1>${content}</main>
</body></html>`;
}

/** The hidden CSRF field every form carries. */
export function csrfField(token: string): Html {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}
