export * from './ai-provider.js';
export * from './builtin-provider.js';
export * from './openai-provider.js';
export * from './feature-hashing.js';
export * from './pattern-entities.js';
export * from './create-ai-provider.js';
export * from './chunking.js';
