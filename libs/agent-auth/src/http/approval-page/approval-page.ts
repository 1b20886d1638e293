import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { buildErrorResponse, escapeHtml, scriptJson, toAppError, type ErrorPage } from '@kw/platform-http';
import type { Logger } from '@kw/platform-observability';

/**
 * The approval page both browser journeys use (docs/agent-authentication.md#the-claim-page,
 * docs/oauth-applications.md#the-consent-page): sign in, review, approve or deny. One HTML
 * shell and one script (browser/approval-page.ts); what differs comes in the page's data.
 * It cannot be framed (clickjacking an approval), runs only the platform's own script, and is
 * never cached.
 */
export interface ApprovalPageData {
  /** "claim" (an agent's service-assisted claim) or "authorize" (an OAuth application). */
  mode: 'claim' | 'authorize';
  signedIn: boolean;
  /** Where the decision is POSTed (a session-only JSON route). */
  decisionUrl?: string;
  email?: string;
  /** pending | window_expired | wrong_account | decided | error */
  state?: string;
  agentName?: string;
  loginHint?: string;
  /** What the page says when state is error. */
  message?: string;
  homepageUrl?: string;
  audience?: string;
  scopes?: Array<{ name: string; description: string }>;
  workspaces?: Array<{ id: string; name: string }>;
}

export const APPROVAL_PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.4rem}.code{font:700 1.6rem/1 ui-monospace,monospace;letter-spacing:.2em;padding:.5rem 1rem;border:2px solid #444;display:inline-block;margin:.5rem 0}
fieldset{border:1px solid #ccc;margin:1rem 0;padding:.5rem 1rem}label{display:block;margin:.25rem 0}
button{font:inherit;padding:.4rem 1rem;margin-right:.5rem}.error{color:#a00}.hidden{display:none}input[type=email],input[type=password]{width:100%;padding:.3rem}`;

let script: { body: string; etag: string } | undefined;

/** The compiled browser script, read once, its source map comment dropped. */
export function approvalPageScript(): { body: string; etag: string } {
  if (!script) {
    const body = readFileSync(new URL('./browser/approval-page.js', import.meta.url), 'utf8').replace(
      /\n\/\/# sourceMappingURL=.*$/m,
      '\n',
    );
    script = { body, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 20)}"` };
  }
  return script;
}

export const approvalPageStyle = (): string => STYLE;

/** Sends the page. `userCode` (claims only) is rendered into the page and nowhere else. */
export async function sendApprovalPage(
  reply: FastifyReply,
  page: {
    title: string;
    data: ApprovalPageData;
    userCode?: string;
    status?: number;
    headers?: Record<string, string>;
  },
): Promise<void> {
  const version = encodeURIComponent(approvalPageScript().etag.replace(/"/g, ''));
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(page.title)}</title>
<link rel="stylesheet" href="/agent/approval-page.css">
</head>
<body>
<main id="app">
<h1>${escapeHtml(page.title)}</h1>
<section id="sign-in" class="hidden">
<p>Sign in to review what <span data-agent-name></span> asks for.</p>
<form id="sign-in-form"><label>Email <input type="email" id="email" autocomplete="username" required></label>
<label>Password <input type="password" id="password" autocomplete="current-password" required></label>
<button type="submit" id="sign-in-button">Sign in</button></form>
<p id="sign-in-error" class="error" role="alert"></p>
</section>
<section id="review" class="hidden">
<p><strong data-agent-name></strong> asks to act for <strong id="account"></strong><span id="audience"></span>.</p>
${
  page.userCode !== undefined
    ? `<p>Check that this code is the one shown on this page only, then decide:</p>
<p class="code" id="user-code">${escapeHtml(page.userCode)}</p>`
    : ''
}
<fieldset><legend>Access</legend><div id="scopes"></div></fieldset>
<fieldset><legend>Workspaces</legend>
<label><input type="radio" name="reach" value="all" id="reach-all" checked> Every workspace I can reach</label>
<label><input type="radio" name="reach" value="some" id="reach-some"> Only these:</label><div id="workspaces"></div></fieldset>
<label id="terms-label"><input type="checkbox" id="terms"> I accept the terms of use and let it act for me as shown</label>
<p><button type="button" id="approve">Approve</button><button type="button" id="deny">Deny</button></p>
<p id="decision-error" class="error" role="alert"></p>
</section>
<section id="message" class="hidden"><p id="message-text" role="status"></p></section>
</main>
<script type="application/json" id="kw-approval">${scriptJson(page.data)}</script>
<script type="module" src="/agent/approval-page.js?v=${version}"></script>
</body>
</html>`;
  await reply
    .status(page.status ?? 200)
    .headers(page.headers ?? {})
    .header('content-security-policy', APPROVAL_PAGE_CSP)
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .type('text/html; charset=utf-8')
    .send(html);
}

/**
 * A failure of a page route (the identity service down or too slow, an unexpected error), as
 * the page: a person's browser loaded it, so it shows a message with the error's status (and
 * its Retry-After), under the page's headers, never a JSON body. Logged as the shared error
 * responder logs what it answers.
 */
export async function sendApprovalPageError(
  reply: FastifyReply,
  request: FastifyRequest,
  err: unknown,
  logger: Logger,
  page: { title: string; mode: ApprovalPageData['mode'] },
): Promise<void> {
  const url = request.url.split('?')[0];
  const response = buildErrorResponse(err, url);
  if (response.errorId)
    logger.error({ err: response.cause, errorId: response.errorId, method: request.method, url }, 'unexpected failure');
  else if (response.status >= 500) logger.warn({ status: response.status, code: response.code, url }, 'request failed');
  const retryAfter = response.headers['retry-after'];
  const message =
    toAppError(err)?.message ?? `An unexpected error occurred. Quote error id ${response.errorId} when reporting it.`;
  const passing = response.status === 503 || response.status === 504;
  await sendApprovalPage(reply, {
    title: page.title,
    status: response.status,
    headers: retryAfter ? { 'retry-after': retryAfter } : {},
    data: {
      mode: page.mode,
      signedIn: false,
      state: 'error',
      message: passing ? `${message.replace(/\.?$/, '.')} Reload this page in a moment.` : message,
    },
  });
}

const isPageLoad = (method: string) => method === 'GET' || method === 'HEAD';

/**
 * The consent page's and the claim page's errors the edge raises before their routes run (a
 * rate limit, a NUL character, an over-long claim id): the page, as their own failures are.
 */
export const CONSENT_ERROR_PAGE: ErrorPage = {
  matches: (method, path) => isPageLoad(method) && path === '/oauth2/authorize',
  send: (request, reply, err, logger) =>
    sendApprovalPageError(reply, request, err, logger, { title: 'Authorization failed', mode: 'authorize' }),
};

export const CLAIM_ERROR_PAGE: ErrorPage = {
  matches: (method, path) => isPageLoad(method) && /^\/agent\/claim\/[^/]+$/.test(path),
  send: (request, reply, err, logger) =>
    sendApprovalPageError(reply, request, err, logger, { title: 'Approve an agent', mode: 'claim' }),
};
