export * from './corpus-statistics.js';
export * from './float4-vectors.js';
export * from './weighted-score-fusion.js';
export * from './snippet-html.js';
