import type { EmbeddingPurpose } from './embedding-prompts.js';

/** An entity found in a text: a person or project name, a handle, a URL, a technology, a linked note... */
export interface ExtractedEntity {
  kind: 'name' | 'handle' | 'url' | 'hashtag' | 'email' | 'technology' | 'note';
  name: string;
}

/** Two entities linked in a text (co-occurrence in one paragraph by default). */
export interface ExtractedRelation {
  source: ExtractedEntity;
  target: ExtractedEntity;
  kind: string;
}

export interface GraphExtraction {
  entities: ExtractedEntity[];
  relations: ExtractedRelation[];
}

/** The tokens a provider reports for one call (an OpenAI-compatible answer's `usage`). */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface CallOptions {
  /** How long this call may take (the provider's own timeout otherwise). */
  timeoutMs?: number;
  /**
   * Told the tokens of a call that succeeded, when the provider reports them (usage records and
   * plan budgets count them); the built-in provider reports none.
   */
  onUsage?: (usage: TokenUsage) => void;
}

/**
 * The AI provider port of enrichment: the built-in provider (no network, deterministic) or an
 * OpenAI-compatible endpoint. Every method may throw; the caller retries with backoff.
 */
export interface AiProvider {
  readonly name: string;
  summarize(text: string, options?: CallOptions): Promise<string>;
  generateTags(text: string, max: number, options?: CallOptions): Promise<string[]>;
  /**
   * One L2-normalised vector per text, in order. `purpose`: what the texts are embedded for
   * (search queries, or the fragments and files searched), for models that mark each apart.
   */
  embed(texts: string[], purpose?: EmbeddingPurpose, options?: CallOptions): Promise<number[][]>;
  extractGraph(text: string): Promise<GraphExtraction>;
}

export const AI_PROVIDER = Symbol('AI_PROVIDER');
