/** Paging and shape limits of the structured listing. */
export const LISTING_LIMIT_DEFAULT = 50;
export const LISTING_LIMIT_MAX = 500;
export const LISTING_OFFSET_MAX = 1_000_000;
export const LISTING_ORDER_MAX = 3;
