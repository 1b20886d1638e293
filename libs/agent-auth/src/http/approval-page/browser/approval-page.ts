/**
 * The approval page's script: the claim page (/agent/claim/{id}) and the OAuth consent page
 * (/oauth2/authorize). Signs the person in through the platform's sign-in route, then shows the
 * review and sends the decision with the session's CSRF token; for an OAuth request the answer
 * says where the browser goes next. Served to browsers as compiled; no imports, nothing from
 * another origin.
 */
interface ClaimScope {
  name: string;
  description: string;
}

interface PageData {
  mode: 'claim' | 'authorize';
  signedIn: boolean;
  decisionUrl?: string;
  email?: string;
  /** pending | window_expired | wrong_account | decided | error */
  state?: string;
  agentName?: string;
  loginHint?: string;
  message?: string;
  audience?: string;
  scopes?: ClaimScope[];
  workspaces?: Array<{ id: string; name: string }>;
}

const data = JSON.parse(document.getElementById('kw-approval')!.textContent ?? '{}') as PageData;
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

function show(id: string): void {
  for (const section of ['sign-in', 'review', 'message']) $(section).classList.toggle('hidden', section !== id);
}

function message(text: string): void {
  $('message-text').textContent = text;
  show('message');
}

function csrfToken(): string {
  const match = /(?:^|;\s*)kw_csrf=([^;]+)/.exec(document.cookie);
  return match ? decodeURIComponent(match[1]) : '';
}

async function errorText(response: Response): Promise<string> {
  const body = (await response.json().catch(() => ({}))) as { error?: unknown };
  return typeof body.error === 'string' ? body.error : `The request failed (${response.status})`;
}

for (const el of document.querySelectorAll('[data-agent-name]')) el.textContent = data.agentName ?? 'An agent';

if (data.state === 'error') {
  message(data.message ?? 'This request cannot be completed.');
} else if (!data.signedIn) {
  show('sign-in');
  $<HTMLFormElement>('sign-in-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void (async () => {
      const response = await fetch('/api/auth/sign-in', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          email: $<HTMLInputElement>('email').value,
          password: $<HTMLInputElement>('password').value,
        }),
        credentials: 'same-origin',
      });
      if (response.ok) location.reload();
      else $('sign-in-error').textContent = await errorText(response);
    })();
  });
} else if (data.state === 'window_expired') {
  message('This approval page has expired. Ask your agent to renew the request, then reload this page.');
} else if (data.state === 'wrong_account') {
  message(
    `This request is for ${data.loginHint ?? 'another account'}. You are signed in as ${data.email ?? ''}: sign in with that account.`,
  );
} else if (data.state === 'decided') {
  message('This request has already been decided.');
} else {
  show('review');
  $('account').textContent = data.email ?? '';
  if (data.audience) $('audience').textContent = ` at ${data.audience}`;
  // Terms are accepted in an agent's claim; an application's consent is the approval itself.
  if (data.mode === 'authorize') $('terms-label').classList.add('hidden');
  const scopes = $('scopes');
  for (const scope of data.scopes ?? []) {
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.checked = true;
    box.value = scope.name;
    box.className = 'scope';
    label.append(box, ` ${scope.description} (${scope.name})`);
    scopes.append(label);
  }
  const workspaces = $('workspaces');
  for (const workspace of data.workspaces ?? []) {
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.value = workspace.id;
    box.className = 'workspace';
    label.append(box, ` ${workspace.name}`);
    workspaces.append(label);
  }
  const decide = async (decision: 'approve' | 'deny') => {
    const checked = (cls: string) =>
      [...document.querySelectorAll<HTMLInputElement>(`input.${cls}`)].filter((b) => b.checked).map((b) => b.value);
    const body: Record<string, unknown> = { decision, scopes: checked('scope') };
    if (data.mode === 'claim') {
      body.userCode = $('user-code').textContent ?? '';
      body.acceptTerms = $<HTMLInputElement>('terms').checked;
    }
    if ($<HTMLInputElement>('reach-some').checked) body.workspaceIds = checked('workspace');
    const response = await fetch(data.decisionUrl ?? '', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken() },
      body: JSON.stringify(body),
      credentials: 'same-origin',
    });
    if (!response.ok) {
      $('decision-error').textContent = await errorText(response);
      return;
    }
    if (data.mode === 'authorize') {
      const { redirectTo } = (await response.json()) as { redirectTo: string };
      message(
        decision === 'approve' ? 'Approved. Returning to the application…' : 'Denied. Returning to the application…',
      );
      location.assign(redirectTo);
      return;
    }
    message(
      decision === 'approve'
        ? 'Approved. You can go back to your agent: it will pick up its access in a moment.'
        : 'Denied. The agent gets no access.',
    );
  };
  $('approve').addEventListener('click', () => void decide('approve'));
  $('deny').addEventListener('click', () => void decide('deny'));
}
