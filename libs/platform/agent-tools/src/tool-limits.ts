// Limits only the agent tools have. The fields they share with REST (title, content, tags, key...) read
// @kw/contracts, whose limits the fragments service also enforces for every caller.
export const LIST_LIMIT_MAX = 100;
export const IDS_MAX = 100;
/** Listings answer this much content per fragment; get_fragment answers all of it. */
export const PREVIEW_CHARS = 280;
