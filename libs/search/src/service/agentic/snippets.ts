import { cutText } from '@kw/contracts';
import { AGENTIC_SNIPPET_CHARS } from '../../search-limits.js';

/**
 * A lead's excerpt (leads carry no more): the summary, else the start of the content, as read
 * with one character more than fits, shortened with an ellipsis when it does not fit.
 */
export function shortSnippet(text: string): string {
  return text.length > AGENTIC_SNIPPET_CHARS ? `${cutText(text, AGENTIC_SNIPPET_CHARS - 1).trimEnd()}…` : text.trim();
}
