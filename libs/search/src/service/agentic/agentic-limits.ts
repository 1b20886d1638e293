/** Limits of agentic search. */
export const AGENTIC_QUERY_MAX = 500;
export const AGENTIC_MAX_LEADS_DEFAULT = 10;
export const AGENTIC_MAX_LEADS = 50;
/** Keywords kept from a query, and candidates each retrieval brings. */
export const AGENTIC_TERMS_MAX = 8;
export const AGENTIC_CANDIDATES = 50;
export const AGENTIC_SNIPPET_CHARS = 200;
