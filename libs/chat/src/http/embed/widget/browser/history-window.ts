/**
 * What a stateless chat sends back of its history: the server keeps nothing, so the frame sends
 * the whole conversation each turn, and the embed API refuses a request beyond its limits (a
 * message count, characters per message, the body size). Without trimming, a conversation stops
 * working for good once it outgrows them. No DOM and no imports: the frame loads it as is.
 */

export interface ChatMessage {
  role: string;
  content: string;
}

/** The embed API's limits, as the frame's configuration carries them (docs/chat.md). */
export interface HistoryLimits {
  /** Messages per request, the new one included. */
  messages: number;
  /** Characters of one message. */
  messageChars: number;
  /** The request body, in bytes of UTF-8 JSON. */
  bodyBytes: number;
}

/** Room kept in the body for everything besides the messages (the conversation id, the keys). */
const BODY_OVERHEAD_BYTES = 1_024;

const encoder = new TextEncoder();
const jsonBytes = (value: unknown) => encoder.encode(JSON.stringify(value)).length;

/** At most `max` UTF-16 units, never half of a surrogate pair (the API refuses a lone one). */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.charCodeAt(max - 1);
  return text.slice(0, cut >= 0xd800 && cut <= 0xdbff ? max - 1 : max);
}

/**
 * The messages of the next turn: the newest of `history` that fit the limits, then `next` (the
 * user's new message, sent as typed: the API says so if it is too long). Each earlier message is
 * cut to the per-message limit, empty ones (an answer that was only a question) are left out, and
 * the window starts with a user message, as model providers expect.
 */
export function historyToSend(history: ChatMessage[], next: ChatMessage, limits: HistoryLimits): ChatMessage[] {
  let budget = limits.bodyBytes - BODY_OVERHEAD_BYTES - jsonBytes(next);
  const kept: ChatMessage[] = [];
  for (let i = history.length - 1; i >= 0 && kept.length < limits.messages - 1; i--) {
    const content = clip(history[i].content, limits.messageChars);
    if (!content) continue;
    const message = { role: history[i].role, content };
    budget -= jsonBytes(message) + 1; // and its comma
    if (budget < 0) break;
    kept.unshift(message);
  }
  while (kept.length > 0 && kept[0].role !== 'user') kept.shift();
  return [...kept, next];
}
