export * from './actions.js';
export * from './roles.js';
export * from './permission-matrix.js';
export * from './scopes.js';
export * from './effective-permissions.js';
export * from './decide.js';
export * from './assert-allowed.js';
export * from './render-markdown.js';
