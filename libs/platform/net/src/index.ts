export { isForbiddenAddress } from './forbidden-address.js';
export { publicFetch, refusedUrl, refusedUrlForm, type PublicFetchPolicy } from './public-fetch.js';
export { defaultLookupAll, pinnedLookup, type LookupAll, type ResolvedAddress } from './pinned-lookup.js';
