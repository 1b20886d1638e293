export { isForbiddenAddress } from './forbidden-address.js';
export { publicFetch, refusedUrl, type PublicFetchPolicy } from './public-fetch.js';
