import { StringDecoder } from 'node:string_decoder';

/** No model API sends an event near this size; beyond it the upstream is broken. */
export const MAX_EVENT_CHARS = 8 * 1024 * 1024;

export interface SseEvent {
  /** The `event:` field, or 'message' when the event named none. */
  event: string;
  data: string;
}

/**
 * Incremental Server-Sent Events parser (the subset model APIs use: `event:` and `data:` fields,
 * comments, blank-line dispatch, LF or CRLF line ends). Bytes go in as they arrive; a line or a
 * UTF-8 character split across network reads is completed by the next one.
 */
export class SseParser {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private event = '';
  private data: string | undefined;
  // Reused between calls: parsing a chunk allocates only the strings of its events.
  private readonly out: SseEvent[] = [];

  /** Characters held for an event not yet complete: a reader bounds it against a runaway upstream. */
  get buffered(): number {
    return this.pending.length + (this.data?.length ?? 0);
  }

  /** The events completed by `chunk`. The array is reused by the next call: read it before then. */
  push(chunk: Buffer): SseEvent[] {
    const out = this.out;
    out.length = 0;
    const decoded = this.decoder.write(chunk);
    const text = this.pending.length > 0 ? this.pending + decoded : decoded;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      this.line(text, start, end, out);
      start = nl + 1;
    }
    this.pending = start === 0 ? text : start < text.length ? text.slice(start) : '';
    return out;
  }

  /** Events still held when the stream ends (a last event without its blank line). */
  end(): SseEvent[] {
    const out = this.out;
    out.length = 0;
    const rest = this.pending + this.decoder.end();
    this.pending = '';
    if (rest.length > 0)
      this.line(rest, 0, rest.charCodeAt(rest.length - 1) === 13 ? rest.length - 1 : rest.length, out);
    this.line('', 0, 0, out);
    return out;
  }

  private line(text: string, start: number, end: number, out: SseEvent[]): void {
    if (start === end) {
      if (this.data !== undefined) out.push({ event: this.event || 'message', data: this.data });
      this.data = undefined;
      this.event = '';
      return;
    }
    if (text.charCodeAt(start) === 58 /* ':' comment */) return;
    let colon = text.indexOf(':', start);
    if (colon === -1 || colon > end) colon = end;
    let valueStart = colon + 1;
    if (valueStart < end && text.charCodeAt(valueStart) === 32) valueStart++;
    const nameLength = colon - start;
    if (nameLength === 4 && text.startsWith('data', start)) {
      const value = valueStart >= end ? '' : text.slice(valueStart, end);
      this.data = this.data === undefined ? value : `${this.data}\n${value}`;
    } else if (nameLength === 5 && text.startsWith('event', start)) {
      this.event = valueStart >= end ? '' : text.slice(valueStart, end);
    }
    // id and retry mean nothing to a one-shot model stream.
  }
}
