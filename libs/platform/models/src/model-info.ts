/** What the platform knows of a model it can route to (the catalog entry behind /api/v1/models). */
export interface ModelCapabilities {
  vision: boolean;
  reasoning: boolean;
  max_output_tokens: number;
  context_length: number;
}

export interface ModelInfo {
  /** The public id clients send (the provider's modelPrefix + the upstream id). */
  id: string;
  owned_by: string;
  display_name: string;
  modality: 'chat' | 'image';
  capabilities: ModelCapabilities;
  /** The id of the provider (its configuration entry) that serves the model. */
  provider: string;
  /** The id the provider knows the model by. */
  upstreamId: string;
  /** Models of one family are interchangeable for fallback across providers. */
  family: string;
  imageSizes?: string[];
}
