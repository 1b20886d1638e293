/**
 * The embed widget's loader, for a customer's page (docs/chat.md#embed-widget):
 *
 *   <script src="https://<platform>/embed/widget.js" data-embed-key="kwek_…" async></script>
 *
 * It adds a launcher button and the chat panel, an iframe of the platform (/embed/frame), so
 * the page's CSS and scripts cannot read the conversation; and `window.kwChat`, the host API.
 * Messages go to the frame's origin only, and only the frame's messages are read. No imports,
 * no framework: served to browsers as is.
 */
(() => {
  const script = document.currentScript as HTMLScriptElement | null;
  if (!script || (window as { kwChat?: unknown }).kwChat) return;
  const key = script.dataset.embedKey ?? '';
  const platform = new URL(script.src).origin;

  type Handler = (message: Record<string, unknown>) => void;
  type TokenSource = string | (() => string | Promise<string>);
  const handlers = new Map<string, Set<Handler>>();
  const pending = new Map<
    string,
    { resolve: (value: Record<string, unknown>) => void; reject: (err: Error) => void }
  >();
  let tokenSource: TokenSource | undefined;
  let refreshTimer: number | undefined;
  let ready = false;
  let isOpen = false;
  const queue: Array<Record<string, unknown>> = [];

  const launcher = document.createElement('button');
  launcher.type = 'button';
  launcher.textContent = 'Chat';
  launcher.setAttribute('aria-label', 'Open chat');
  launcher.setAttribute('aria-expanded', 'false');
  launcher.dataset.kwChat = 'launcher';
  Object.assign(launcher.style, {
    position: 'fixed',
    right: '20px',
    bottom: '20px',
    zIndex: '2147483000',
    padding: '12px 18px',
    borderRadius: '24px',
    border: '0',
    background: '#2f5bea',
    color: '#fff',
    font: '600 15px system-ui, sans-serif',
    boxShadow: '0 4px 14px rgba(0,0,0,.25)',
    cursor: 'pointer',
  });

  const frame = document.createElement('iframe');
  // data-stall-timeout: seconds without a byte of an answer before the panel gives it up.
  const stall = script.dataset.stallTimeout;
  frame.src = `${platform}/embed/frame?key=${encodeURIComponent(key)}${
    stall ? `&stallTimeout=${encodeURIComponent(stall)}` : ''
  }`;
  frame.title = 'Chat';
  frame.dataset.kwChat = 'frame';
  frame.setAttribute('allow', 'clipboard-write');
  frame.style.display = 'none';

  /** Desktop: a panel above the launcher; phone width: the whole screen. */
  function place(): void {
    const phone = window.innerWidth < 520;
    Object.assign(frame.style, {
      position: 'fixed',
      zIndex: '2147483001',
      border: phone ? '0' : '1px solid rgba(0,0,0,.15)',
      borderRadius: phone ? '0' : '12px',
      boxShadow: '0 8px 30px rgba(0,0,0,.25)',
      right: phone ? '0' : '20px',
      bottom: phone ? '0' : '80px',
      width: phone ? '100vw' : 'min(400px, calc(100vw - 40px))',
      height: phone ? '100vh' : 'min(620px, calc(100vh - 100px))',
      background: 'transparent',
    });
  }
  place();
  window.addEventListener('resize', place);

  function post(message: Record<string, unknown>): void {
    const full = { source: 'kw-embed-host', ...message };
    if (ready && frame.contentWindow) frame.contentWindow.postMessage(full, platform);
    else queue.push(full);
  }

  function setOpen(open: boolean): void {
    isOpen = open;
    frame.style.display = open ? 'block' : 'none';
    launcher.setAttribute('aria-expanded', String(open));
    launcher.setAttribute('aria-label', open ? 'Close chat' : 'Open chat');
    post({ kind: 'VISIBILITY', open });
    if (!open) launcher.focus();
  }
  launcher.addEventListener('click', () => setOpen(!isOpen));

  /** The seconds until a JWT's `exp`, or undefined. */
  function secondsLeft(jwt: string): number | undefined {
    try {
      const payload = JSON.parse(atob(jwt.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: number };
      return typeof payload.exp === 'number' ? payload.exp - Date.now() / 1000 : undefined;
    } catch {
      return undefined;
    }
  }

  /** Sends the host user's token, and asks a token function again a minute before it expires. */
  async function pushToken(): Promise<void> {
    window.clearTimeout(refreshTimer);
    if (tokenSource === undefined) return;
    const jwt = typeof tokenSource === 'function' ? await tokenSource() : tokenSource;
    post({ kind: 'SET_TOKEN', token: jwt });
    const left = secondsLeft(jwt);
    if (typeof tokenSource === 'function' && left !== undefined) {
      refreshTimer = window.setTimeout(() => void pushToken(), Math.max(5, left - 60) * 1000);
    }
  }

  function request(message: Record<string, unknown>): Promise<Record<string, unknown>> {
    const requestId = Math.random().toString(36).slice(2) + Date.now().toString(36);
    return new Promise((resolve, reject) => {
      pending.set(requestId, { resolve, reject });
      post({ kind: 'FILES', requestId, ...message });
    });
  }

  function toBase64(bytes: Uint8Array): string {
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(binary);
  }

  window.addEventListener('message', (event: MessageEvent) => {
    if (event.origin !== platform || event.source !== frame.contentWindow) return;
    const message = event.data as Record<string, unknown> & { source?: string; kind?: string };
    if (message?.source !== 'kw-embed') return;
    if (message.kind === 'READY') {
      ready = true;
      void pushToken();
      for (const queued of queue.splice(0)) frame.contentWindow!.postMessage(queued, platform);
    } else if (message.kind === 'CLOSE') setOpen(false);
    else if (message.kind === 'FILES_RESULT') {
      const waiting = pending.get(String(message.requestId));
      pending.delete(String(message.requestId));
      if (message.ok) waiting?.resolve(message);
      else waiting?.reject(Object.assign(new Error(String(message.error ?? 'failed')), { status: message.status }));
    }
    for (const handler of handlers.get(String(message.kind)) ?? []) handler(message);
  });

  const api = {
    version: 1,
    open: () => setOpen(true),
    close: () => setOpen(false),
    toggle: () => setOpen(!isOpen),
    /** Opens the panel and sends a message as the user. */
    send(text: string): void {
      setOpen(true);
      post({ kind: 'SEND', text });
    },
    /** The host user's JWT, or a function answering a fresh one (called again before expiry). */
    setUserToken(source: TokenSource): Promise<void> {
      tokenSource = source;
      return pushToken();
    },
    /** Host events and feedback: on('EVENT', fn), on('FEEDBACK', fn). */
    on(kind: string, handler: Handler): () => void {
      if (!handlers.has(kind)) handlers.set(kind, new Set());
      handlers.get(kind)!.add(handler);
      return () => handlers.get(kind)!.delete(handler);
    },
    workspaceFiles: {
      async readBytes(fileId: string): Promise<{ fileId: string; mimeType: string; bytes: Uint8Array }> {
        const result = await request({ op: 'read', fileId });
        return { fileId, mimeType: String(result.mimeType), bytes: result.bytes as Uint8Array };
      },
      async putBytes(file: { fileName: string; mimeType: string; bytes: Uint8Array | ArrayBuffer }) {
        const bytes = file.bytes instanceof Uint8Array ? file.bytes : new Uint8Array(file.bytes);
        const result = await request({
          op: 'put',
          fileName: file.fileName,
          mimeType: file.mimeType,
          base64: toBase64(bytes),
        });
        return { ok: true, fileId: String(result.fileId), status: String(result.status ?? '') };
      },
    },
  };
  (window as { kwChat?: typeof api }).kwChat = api;
  const mount = () => document.body.append(launcher, frame);
  if (document.body) mount();
  else document.addEventListener('DOMContentLoaded', mount);
})();
