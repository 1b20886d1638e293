/**
 * What a text is embedded for. Many open retrieval models are asymmetric: trained with a
 * marker before queries and another (or none) before documents, they rank markedly worse when
 * either is missing. `undefined`: the text as given (the AI helpers' default).
 */
export type EmbeddingPurpose = 'query' | 'document';

export interface EmbeddingPrompts {
  query: string;
  document: string;
}

const NO_PROMPTS: EmbeddingPrompts = { query: '', document: '' };
const RETRIEVAL_INSTRUCTION = 'Represent this sentence for searching relevant passages: ';

/**
 * The markers of well-known model families, from their model cards, matched on the model's own
 * name (see `modelStem`). Instruction-tuned variants with other formats (e5-mistral,
 * multilingual-e5-*-instruct) are deliberately absent: no marker is safer than a wrong one.
 */
const KNOWN_FAMILIES: Array<{ family: RegExp; prompts: EmbeddingPrompts }> = [
  { family: /^nomic-embed-text/, prompts: { query: 'search_query: ', document: 'search_document: ' } },
  { family: /^(multilingual-)?e5-(small|base|large)(-v2)?$/, prompts: { query: 'query: ', document: 'passage: ' } },
  { family: /^bge-(small|base|large)(-en)?(-v1\.5)?$/, prompts: { query: RETRIEVAL_INSTRUCTION, document: '' } },
  { family: /^mxbai-embed-large(-v1)?$/, prompts: { query: RETRIEVAL_INSTRUCTION, document: '' } },
  {
    family: /^snowflake-arctic-embed(-(xs|s|m|m-long|l))?(-v1\.5)?$/,
    prompts: { query: RETRIEVAL_INSTRUCTION, document: '' },
  },
  { family: /^snowflake-arctic-embed(2|-(m|l)-v2\.0)$/, prompts: { query: 'query: ', document: '' } },
  {
    family: /^embeddinggemma/,
    prompts: { query: 'task: search result | query: ', document: 'title: none | text: ' },
  },
  {
    family: /^qwen3-embedding/,
    prompts: {
      query: 'Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:',
      document: '',
    },
  },
];

/** Packaging suffixes that name a file format or quantisation, not another model. */
const PACKAGING = /(?:[-_.](?:gguf|onnx|fp16|f16|f32|bf16|q\d\w*))+$/;

/**
 * The model's own name as servers spell it in many ways: `nomic-ai/nomic-embed-text-v1.5`
 * (Hugging Face), `nomic-embed-text:latest` (Ollama), `text-embedding-nomic-embed-text-v1.5`
 * (LM Studio), `hf.co/…/bge-small-en-v1.5-gguf:Q8_0`.
 */
export function modelStem(model: string): string {
  const name = model.trim().toLowerCase().split('/').pop() ?? '';
  return name
    .replace(/:.*$/, '')
    .replace(/^text-embedding-(?!3-|ada)/, '')
    .replace(PACKAGING, '');
}

/** The markers of a known model family, or none. */
export function knownEmbeddingPrompts(model: string): EmbeddingPrompts {
  const stem = modelStem(model);
  return KNOWN_FAMILIES.find(({ family }) => family.test(stem))?.prompts ?? NO_PROMPTS;
}

/**
 * The markers used for a model: each configured one wins (`none`: no marker, even for a known
 * family), the family's where it is not configured.
 */
export function embeddingPrompts(
  model: string,
  configured: { query?: string; document?: string } = {},
): EmbeddingPrompts {
  const known = knownEmbeddingPrompts(model);
  const pick = (value: string | undefined, fallback: string) =>
    value === undefined ? fallback : value === 'none' ? '' : value;
  return { query: pick(configured.query, known.query), document: pick(configured.document, known.document) };
}
