import { AgenticSearchHandler } from './agentic-search.handlers.js';

/** Wired into the search component's service module (search-service.module.ts). */
export const AGENTIC_PROVIDERS = [AgenticSearchHandler];
