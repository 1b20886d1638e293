/** The chat panel's stylesheet (/embed/frame.css): light and dark, the visitor's choice under `auto`. */
export const FRAME_CSS = `
:root { --bg: #ffffff; --fg: #1d2330; --muted: #5d6475; --line: #dfe3ea; --user: #2f5bea; --user-fg: #ffffff; --bot: #f1f3f7; --focus: #2f5bea; color-scheme: light; }
:root[data-theme='dark'] { --bg: #161a22; --fg: #e8ebf2; --muted: #a3aab8; --line: #2c3340; --user: #4c74ff; --user-fg: #ffffff; --bot: #222835; --focus: #8aa4ff; color-scheme: dark; }
@media (prefers-color-scheme: dark) {
  :root[data-theme='auto'] { --bg: #161a22; --fg: #e8ebf2; --muted: #a3aab8; --line: #2c3340; --user: #4c74ff; --user-fg: #ffffff; --bot: #222835; --focus: #8aa4ff; color-scheme: dark; }
}
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; background: var(--bg); color: var(--fg); font: 15px/1.45 system-ui, -apple-system, 'Segoe UI', sans-serif; }
#app { display: flex; flex-direction: column; height: 100%; }
header { display: flex; align-items: center; justify-content: space-between; padding: 10px 14px; border-bottom: 1px solid var(--line); font-weight: 600; }
header button { background: none; border: 0; color: var(--fg); font-size: 22px; line-height: 1; cursor: pointer; padding: 4px 8px; border-radius: 6px; }
#log { flex: 1; overflow-y: auto; padding: 12px; display: flex; flex-direction: column; gap: 8px; }
.msg { max-width: 88%; padding: 8px 12px; border-radius: 12px; overflow-wrap: anywhere; }
.msg p { margin: 0 0 6px; } .msg p:last-child { margin-bottom: 0; }
.msg pre { overflow-x: auto; background: rgba(127,127,127,.15); padding: 8px; border-radius: 6px; }
.msg code { font-family: ui-monospace, monospace; font-size: 13px; }
.msg a { color: inherit; }
.user { align-self: flex-end; background: var(--user); color: var(--user-fg); }
.assistant { align-self: flex-start; background: var(--bot); }
.status, .tools { align-self: center; color: var(--muted); font-size: 13px; }
.question fieldset { border: 0; margin: 0 0 8px; padding: 0; }
.question legend { font-weight: 600; margin-bottom: 4px; }
.question label { display: block; padding: 2px 0; }
.question input[type='text'] { width: 100%; margin-top: 4px; }
.feedback { display: flex; gap: 6px; align-items: center; align-self: flex-start; }
.feedback button { background: none; color: var(--muted); border: 1px solid var(--line); border-radius: 8px; cursor: pointer; padding: 2px 8px; font: inherit; font-size: 13px; }
.feedback input { flex: 1; min-width: 0; }
form { display: flex; gap: 8px; padding: 10px; border-top: 1px solid var(--line); }
textarea, input[type='text'] { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: 8px; padding: 8px; }
textarea { flex: 1; resize: none; }
form button, .question button { background: var(--user); color: var(--user-fg); border: 0; border-radius: 8px; padding: 0 16px; font: inherit; font-weight: 600; cursor: pointer; }
.question button { padding: 6px 14px; }
:focus-visible { outline: 2px solid var(--focus); outline-offset: 2px; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
`;
