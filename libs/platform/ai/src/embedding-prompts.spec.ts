import { describe, expect, it } from 'vitest';
import { embeddingPrompts, knownEmbeddingPrompts, modelStem } from './embedding-prompts.js';

const INSTRUCTION = 'Represent this sentence for searching relevant passages: ';

describe('embedding prompts', () => {
  it('reads the model name as Hugging Face, Ollama, LM Studio and GGUF files spell it', () => {
    expect(modelStem('nomic-ai/nomic-embed-text-v1.5')).toBe('nomic-embed-text-v1.5');
    expect(modelStem('nomic-embed-text:latest')).toBe('nomic-embed-text');
    expect(modelStem('text-embedding-nomic-embed-text-v1.5')).toBe('nomic-embed-text-v1.5');
    expect(modelStem('hf.co/CompendiumLabs/bge-small-en-v1.5-gguf:Q8_0')).toBe('bge-small-en-v1.5');
    expect(modelStem('BAAI/bge-base-en-v1.5-Q4_K_M')).toBe('bge-base-en-v1.5');
    // OpenAI's own names are left alone.
    expect(modelStem('text-embedding-3-small')).toBe('text-embedding-3-small');
    expect(modelStem('text-embedding-ada-002')).toBe('text-embedding-ada-002');
  });

  it('knows the markers of the common open retrieval models, from their model cards', () => {
    expect(knownEmbeddingPrompts('nomic-embed-text')).toEqual({
      query: 'search_query: ',
      document: 'search_document: ',
    });
    expect(knownEmbeddingPrompts('intfloat/e5-base-v2')).toEqual({ query: 'query: ', document: 'passage: ' });
    expect(knownEmbeddingPrompts('intfloat/multilingual-e5-large')).toEqual({
      query: 'query: ',
      document: 'passage: ',
    });
    for (const model of [
      'BAAI/bge-small-en-v1.5',
      'bge-large', // Ollama's name of bge-large-en-v1.5
      'mxbai-embed-large:latest',
      'snowflake-arctic-embed',
      'Snowflake/snowflake-arctic-embed-m-v1.5',
    ])
      expect(knownEmbeddingPrompts(model), model).toEqual({ query: INSTRUCTION, document: '' });
    expect(knownEmbeddingPrompts('snowflake-arctic-embed2')).toEqual({ query: 'query: ', document: '' });
    expect(knownEmbeddingPrompts('Snowflake/snowflake-arctic-embed-l-v2.0')).toEqual({
      query: 'query: ',
      document: '',
    });
    expect(knownEmbeddingPrompts('google/embeddinggemma-300m')).toEqual({
      query: 'task: search result | query: ',
      document: 'title: none | text: ',
    });
    expect(knownEmbeddingPrompts('Qwen/Qwen3-Embedding-0.6B').query).toMatch(/^Instruct: .+\nQuery:$/);
  });

  it('puts no marker for models trained without one, or with another format', () => {
    for (const model of [
      'text-embedding-3-small',
      'text-embedding-ada-002',
      'all-minilm',
      'sentence-transformers/all-MiniLM-L6-v2',
      'bge-m3',
      'BAAI/bge-large-zh-v1.5',
      'intfloat/e5-mistral-7b-instruct',
      'intfloat/multilingual-e5-large-instruct',
      'granite-embedding',
    ])
      expect(knownEmbeddingPrompts(model), model).toEqual({ query: '', document: '' });
  });

  it('lets each configured marker win, and `none` remove a known one', () => {
    expect(embeddingPrompts('nomic-embed-text', { query: 'none' })).toEqual({
      query: '',
      document: 'search_document: ',
    });
    expect(embeddingPrompts('my-finetune', { query: 'q: ', document: 'd: ' })).toEqual({
      query: 'q: ',
      document: 'd: ',
    });
    expect(embeddingPrompts('e5-small-v2')).toEqual({ query: 'query: ', document: 'passage: ' });
  });
});
