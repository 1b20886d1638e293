import { AgenticSearchHandler } from './agentic-search.handler.js';

/** Wired into the search component's service module (search-service.module.ts). */
export const AGENTIC_PROVIDERS = [AgenticSearchHandler];
