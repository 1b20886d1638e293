import { GraphHandlers } from './graph.handlers.js';
import { GraphController } from '../../http/graph.controller.js';

/** Wired into the search component's modules (search-service.module.ts, search-http.module.ts). */
export const GRAPH_PROVIDERS = [GraphHandlers];
export const GRAPH_CONTROLLERS = [GraphController];
