import { ListingController } from '../../http/listing.controller.js';
import { ListFragmentsHandler } from './list-fragments.handlers.js';

/** Wired into the search component's modules (search-service.module.ts, search-http.module.ts). */
export const LISTING_PROVIDERS = [ListFragmentsHandler];
export const LISTING_CONTROLLERS = [ListingController];
