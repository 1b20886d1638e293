/**
 * The chat panel, inside the platform's iframe (/embed/frame): the host page cannot read it.
 * It talks to the embed API with the key of its URL, gets the host user's JWT from the parent
 * by postMessage, and posts back only to the parent's origin (one of the key's allowed origins),
 * never to '*'. Served to browsers as is: its only imports are the modules next to it.
 */
import { historyToSend, type HistoryLimits } from './history-window.js';
import { parseMarkdown, type MdNode } from './markdown.js';

interface FrameConfig {
  configId: string;
  workspaceId: string;
  name: string;
  theme: string;
  feedbackMode: string;
  stateless: boolean;
  exposeFiles: boolean;
  /** null for a public key: any parent. */
  allowedOrigins: string[] | null;
  /** The embed API's request limits, which a stateless history is trimmed to. */
  limits: HistoryLimits;
}

interface Question {
  question: string;
  options?: string[];
  multiple?: boolean;
  allowOther?: boolean;
}

const config = JSON.parse(document.getElementById('kw-embed')!.textContent ?? '{}') as FrameConfig;
const query = new URLSearchParams(location.search);
const key = query.get('key') ?? '';
/** An answer that sends no byte for this long is given up (the widget's data-stall-timeout, seconds). */
const stallMs = stallTimeoutMs(query.get('stallTimeout'));
const ancestors = (location as Location & { ancestorOrigins?: DOMStringList }).ancestorOrigins;
const hostOrigin = ancestors?.[0] ?? (document.referrer ? new URL(document.referrer).origin : '');
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const log = $('log');
const input = $<HTMLTextAreaElement>('input');
const form = $<HTMLFormElement>('composer');

let token = '';
let conversationId = '';
/** Whether the server holds conversationId: a new one is stored only when its first turn is done. */
let conversationStored = false;
let busy = false;
const history: Array<{ role: string; content: string }> = [];

document.documentElement.dataset.theme = config.theme || 'auto';
$('title').textContent = config.name || 'Chat';

const framed = window.parent !== window && hostOrigin !== '';
const allowedHere = framed && (config.allowedOrigins === null || config.allowedOrigins.includes(hostOrigin));

/** Messages to the widget script and host events: to the parent's origin only. */
function toHost(message: Record<string, unknown>): void {
  if (allowedHere) window.parent.postMessage({ source: 'kw-embed', ...message }, hostOrigin);
}

/** EVENT messages, in host-event mode. */
function hostEvent(event: string, data: Record<string, unknown> = {}): void {
  if (config.feedbackMode === 'host-event') toHost({ kind: 'EVENT', event, ...data });
}

function build(node: MdNode): Node {
  if (typeof node === 'string') return document.createTextNode(node);
  const el = document.createElement(node.tag);
  if (node.tag === 'a' && node.href) {
    el.setAttribute('href', node.href);
    el.setAttribute('target', '_blank');
    el.setAttribute('rel', 'noopener noreferrer nofollow');
  }
  for (const child of node.children) el.appendChild(build(child));
  return el;
}

function renderMarkdown(target: HTMLElement, text: string): void {
  target.replaceChildren(...parseMarkdown(text).map(build));
}

function bubble(role: 'user' | 'assistant' | 'status'): HTMLElement {
  const el = document.createElement('div');
  el.className = `msg ${role}`;
  log.appendChild(el);
  log.scrollTop = log.scrollHeight;
  return el;
}

function apiUrl(path: string): string {
  return `/api/v2/embed/${path}?key=${encodeURIComponent(key)}`;
}

function stallTimeoutMs(seconds: string | null): number {
  const n = Number(seconds);
  return Number.isFinite(n) && n > 0 ? Math.min(n, 600) * 1000 : 30_000;
}

function setBusy(on: boolean): void {
  busy = on;
  if (on) form.setAttribute('aria-busy', 'true');
  else form.removeAttribute('aria-busy');
}

/** How an answer's stream ended: its last event, or `cut` when it stopped without one. */
type Ending = 'done' | 'question' | 'error' | 'cut';

/**
 * One streamed request: posts `body`, hands an ok response to `read`, and aborts when no byte
 * arrives for stallMs (the server sends a keep-alive comment every 15 s while a turn works), so
 * a dead connection ends in an error instead of a frozen answer. Throws when nothing could be
 * read or the stream stalled; answers the failed response as is.
 */
async function streamed(
  path: string,
  body: unknown,
  read: (res: Response, alive: () => void) => Promise<Ending>,
): Promise<{ res: Response; ending?: Ending }> {
  const abort = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const alive = () => {
    clearTimeout(timer);
    timer = setTimeout(() => abort.abort(new Error('stalled')), stallMs);
  };
  alive();
  try {
    const res = await fetch(apiUrl(path), {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify(body),
      signal: abort.signal,
    });
    if (!res.ok) return { res };
    return { res, ending: await read(res, alive) };
  } catch (err) {
    throw abort.signal.aborted ? new Stalled() : err;
  } finally {
    clearTimeout(timer);
  }
}

class Stalled extends Error {
  constructor() {
    super('The answer stopped arriving. Please try again.');
  }
}

function unreachable(err: unknown): string {
  return err instanceof Stalled ? err.message : 'The chat could not be reached';
}

function headers(): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-embed-host-origin': hostOrigin,
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
}

async function failureOf(res: Response): Promise<string> {
  try {
    return ((await res.json()) as { error?: string }).error ?? `Error ${res.status}`;
  } catch {
    return `Error ${res.status}`;
  }
}

/** Reads one answer's event stream into an assistant bubble; `alive` is called on every chunk. */
async function readAnswer(res: Response, alive: () => void): Promise<Ending> {
  const answer = bubble('assistant');
  const status = document.createElement('div');
  status.className = 'tools';
  let text = '';
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let ending: Ending = 'cut';
  try {
    return await readEvents();
  } finally {
    status.remove();
    void reader.cancel().catch(() => undefined);
  }

  async function readEvents(): Promise<Ending> {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return ending;
      alive();
      buffer += value;
      let cut = buffer.indexOf('\n\n');
      while (cut >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        cut = buffer.indexOf('\n\n');
        const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
        const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null');
        if (event === 'conversation') conversationId = data.conversationId;
        else if (event === 'delta') {
          text += data.text;
          renderMarkdown(answer, text);
          log.scrollTop = log.scrollHeight;
        } else if (event === 'tool' && data.status === 'started') {
          status.textContent = `Looking things up (${data.name})…`;
          if (!status.isConnected) answer.before(status);
        } else if (event === 'question') {
          status.remove();
          if (!text) answer.remove();
          showQuestions(data.resumeToken, data.questions as Question[]);
          hostEvent('question_shown', { questions: data.questions });
          ending = 'question';
        } else if (event === 'done') {
          status.remove();
          // The finished turn is stored under this id (an answered question's turn included).
          conversationId = data.conversationId;
          conversationStored = !config.stateless;
          ending = 'done';
          if (config.stateless) history.push({ role: 'assistant', content: text });
          answer.dataset.messageId = data.messageId;
          addFeedback(answer, data.messageId);
          hostEvent('answer_finished', { messageId: data.messageId, conversationId: data.conversationId });
        } else if (event === 'error') {
          status.remove();
          const failed = bubble('status');
          failed.textContent = data.error?.message ?? 'The answer failed';
          ending = 'error';
        }
      }
    }
  }
}

/**
 * After a turn of a stored conversation: a new conversation whose first turn did not finish
 * (failed, cut, stalled, or paused on a question) was never stored, so its id is forgotten and
 * the next message starts a new conversation instead of answering "Conversation not found".
 */
function settleConversation(): void {
  if (!config.stateless && !conversationStored) conversationId = '';
}

async function send(text: string): Promise<void> {
  const content = text.trim();
  if (!content || busy || !allowedHere) return;
  setBusy(true);
  renderMarkdown(bubble('user'), content);
  hostEvent('message_sent', { text: content });
  // Stateless: the whole history goes back each turn, trimmed to what the API takes (newest kept).
  const messages = config.stateless
    ? historyToSend(history, { role: 'user', content }, config.limits)
    : [{ role: 'user', content }];
  try {
    const { res } = await streamed('chat', { messages, ...(conversationId ? { conversationId } : {}) }, (ok, alive) => {
      if (config.stateless) {
        history.splice(0, history.length, ...messages);
        conversationId = ok.headers.get('x-embed-session-id') ?? conversationId;
      }
      return readAnswer(ok, alive);
    });
    if (!res.ok) bubble('status').textContent = await failureOf(res);
  } catch (err) {
    bubble('status').textContent = unreachable(err);
  } finally {
    settleConversation();
    setBusy(false);
  }
}

function showQuestions(resumeToken: string, questions: Question[]): void {
  const panel = bubble('assistant');
  panel.classList.add('question');
  const fields = questions.map((q, qi) => {
    const set = document.createElement('fieldset');
    const legend = document.createElement('legend');
    legend.textContent = q.question;
    set.appendChild(legend);
    for (const option of q.options ?? []) {
      const label = document.createElement('label');
      const box = document.createElement('input');
      box.type = q.multiple ? 'checkbox' : 'radio';
      box.name = `q${qi}`;
      box.value = option;
      label.append(box, document.createTextNode(` ${option}`));
      set.appendChild(label);
    }
    let other: HTMLInputElement | undefined;
    if (q.allowOther || !q.options?.length) {
      other = document.createElement('input');
      other.type = 'text';
      other.placeholder = 'Your answer';
      other.setAttribute('aria-label', `Your answer to: ${q.question}`);
      set.appendChild(other);
    }
    panel.appendChild(set);
    return { q, set, other };
  });
  const submit = document.createElement('button');
  submit.type = 'button';
  submit.textContent = 'Answer';
  panel.appendChild(submit);
  submit.addEventListener('click', () => {
    const answers = fields.map(({ q, set, other }) => ({
      question: q.question,
      selected: [...set.querySelectorAll<HTMLInputElement>('input:checked')].map((b) => b.value),
      ...(other?.value.trim() ? { other: other.value.trim() } : {}),
    }));
    const enable = (on: boolean) =>
      panel.querySelectorAll('input, button').forEach((el) => ((el as HTMLInputElement).disabled = !on));
    enable(false);
    void answer(resumeToken, answers, () => enable(true));
  });
  (panel.querySelector('input') as HTMLInputElement | null)?.focus();
}

/**
 * Resumes the paused turn. When the answer never reached the server (no response) or was refused
 * without using the token (anything but 404), the question opens again to be answered again.
 */
async function answer(resumeToken: string, answers: unknown[], reopen: () => void): Promise<void> {
  setBusy(true);
  try {
    const { res } = await streamed('answer', { resumeToken, answers }, readAnswer);
    if (!res.ok) {
      bubble('status').textContent = await failureOf(res);
      if (res.status !== 404) reopen();
    }
  } catch (err) {
    bubble('status').textContent = unreachable(err);
    // A stalled answer reached the server, which has used the token.
    if (!(err instanceof Stalled)) reopen();
  } finally {
    settleConversation();
    setBusy(false);
  }
}

function addFeedback(answerEl: HTMLElement, messageId: string): void {
  if (config.feedbackMode !== 'fragment-feedback' && config.feedbackMode !== 'host-event') return;
  const bar = document.createElement('div');
  bar.className = 'feedback';
  const comment = document.createElement('input');
  comment.type = 'text';
  comment.placeholder = 'Comment (optional)';
  comment.setAttribute('aria-label', 'Comment on this answer');
  const rate = (rating: 'positive' | 'negative') => async () => {
    bar.querySelectorAll('button, input').forEach((el) => ((el as HTMLInputElement).disabled = true));
    if (config.feedbackMode === 'host-event') {
      toHost({ kind: 'FEEDBACK', messageId, rating, comment: comment.value.trim() });
    } else {
      await fetch(apiUrl('feedback'), {
        method: 'POST',
        headers: headers(),
        body: JSON.stringify({ rating, messageId, embedConfigId: config.configId, comment: comment.value.trim() }),
      });
    }
    bar.dataset.sent = rating;
  };
  for (const [rating, label] of [
    ['positive', 'Helpful'],
    ['negative', 'Not helpful'],
  ] as const) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = `rate ${rating}`;
    button.textContent = label;
    button.addEventListener('click', () => void rate(rating)());
    bar.appendChild(button);
  }
  bar.appendChild(comment);
  answerEl.after(bar);
}

/** The bridge to the byte proxy, for the host page's kwChat.workspaceFiles. */
async function files(message: {
  requestId: string;
  op: string;
  fileId?: string;
  fileName?: string;
  mimeType?: string;
  base64?: string;
}) {
  const reply = (result: Record<string, unknown>) =>
    toHost({ kind: 'FILES_RESULT', requestId: message.requestId, ...result });
  if (!config.exposeFiles) return reply({ ok: false, error: 'This chat does not share workspace files with the page' });
  const auth = { 'x-embed-host-origin': hostOrigin, ...(token ? { authorization: `Bearer ${token}` } : {}) };
  try {
    if (message.op === 'read') {
      const res = await fetch(
        `/api/workspace-files/${encodeURIComponent(message.fileId ?? '')}/bytes?key=${encodeURIComponent(key)}`,
        {
          headers: auth,
        },
      );
      if (!res.ok) return reply({ ok: false, status: res.status, error: await failureOf(res) });
      const bytes = new Uint8Array(await res.arrayBuffer());
      return reply({ ok: true, fileId: message.fileId, mimeType: res.headers.get('content-type') ?? '', bytes });
    }
    const res = await fetch(`/api/workspace-files/bytes?key=${encodeURIComponent(key)}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        workspaceId: config.workspaceId,
        fileName: message.fileName,
        mimeType: message.mimeType,
        base64: message.base64,
      }),
    });
    if (!res.ok) return reply({ ok: false, status: res.status, error: await failureOf(res) });
    return reply({ ok: true, ...(await res.json()) });
  } catch {
    return reply({ ok: false, error: 'The chat could not be reached' });
  }
}

window.addEventListener('message', (event: MessageEvent) => {
  // Only the parent page, from the origin the key allows: anything else is ignored.
  if (event.source !== window.parent || event.origin !== hostOrigin || !allowedHere) return;
  const message = event.data as { source?: string; kind?: string; [k: string]: unknown };
  if (message?.source !== 'kw-embed-host') return;
  if (message.kind === 'SET_TOKEN') token = typeof message.token === 'string' ? message.token : '';
  else if (message.kind === 'SEND') void send(String(message.text ?? ''));
  else if (message.kind === 'VISIBILITY') {
    hostEvent(message.open ? 'opened' : 'closed');
    if (message.open) input.focus();
  } else if (message.kind === 'FILES') void files(message as never);
});

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const text = input.value;
  input.value = '';
  void send(text);
});
input.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey) {
    event.preventDefault();
    form.requestSubmit();
  }
});
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape') toHost({ kind: 'CLOSE' });
});
$('close').addEventListener('click', () => toHost({ kind: 'CLOSE' }));

if (!allowedHere) {
  form.hidden = true;
  bubble('status').textContent = 'This chat is not available on this page.';
} else {
  toHost({ kind: 'READY' });
}
