export { isForbiddenAddress } from './forbidden-address.js';
export { publicFetch, refusedUrl, refusedUrlForm, type PublicFetchPolicy } from './public-fetch.js';
