/** Most accounts one page of the administrators' account list holds (DTO and service both enforce it). */
export const USERS_PAGE_MAX = 200;
