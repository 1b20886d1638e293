import { describe, expect, it } from 'vitest';
import { modelFor, routeTurn, toolsFor, type ExpertLike } from './embed-agent-plan.js';

const expert = (id: string, keywords: string[], tools: string[] = ['search']): ExpertLike => ({
  id,
  name: id,
  systemPrompt: '',
  enabledTools: tools,
  routingKeywords: keywords,
  modelPreference: '',
});

describe('embed agent plan', () => {
  const billing = expert('billing', ['invoice', 'refund policy']);
  const main = expert('main', []);

  it('routes a turn to the expert whose keyword appears as a word, else the main expert', () => {
    expect(routeTurn('Where is my Invoice?', main, [billing])).toEqual({ expert: billing, routed: true });
    expect(routeTurn('what is the refund policy here', main, [billing]).expert).toBe(billing);
    expect(routeTurn('invoices are fine', main, [billing])).toEqual({ expert: main, routed: false });
    expect(routeTurn('hello', undefined, [billing])).toEqual({ expert: undefined, routed: false });
  });

  it('offers the default tools without an expert and drops the ones the configuration switched off', () => {
    const off = { structuredQuestions: false, webSearch: false };
    const all = ['*'];
    expect(toolsFor(undefined, off, all)).toEqual([
      'search',
      'get_fragment',
      'list_fragments',
      'list_collections',
      'related',
      'search_workspace_files',
      'read_workspace_file',
    ]);
    expect(toolsFor(undefined, { structuredQuestions: true, webSearch: false }, all)).toContain('ask_user');
    expect(toolsFor(expert('x', [], ['web_search', 'get_fragment', 'ask_user']), off, all)).toEqual(['get_fragment']);
    expect(
      toolsFor(expert('x', [], ['web_search', 'ask_user']), { structuredQuestions: true, webSearch: true }, all),
    ).toEqual(['web_search', 'ask_user']);
  });

  it('offers the file tools only to a caller who may read files, with an expert or without', () => {
    const off = { structuredQuestions: false, webSearch: false };
    const reader = ['fragments:read', 'search:read', 'files:read'];
    const noFiles = ['fragments:read', 'search:read'];
    expect(toolsFor(undefined, off, reader)).toEqual(
      expect.arrayContaining(['search_workspace_files', 'read_workspace_file']),
    );
    const withoutFiles = toolsFor(undefined, off, noFiles);
    expect(withoutFiles).toContain('search');
    expect(withoutFiles).not.toContain('search_workspace_files');
    expect(withoutFiles).not.toContain('read_workspace_file');
    const librarian = expert('lib', [], ['list_workspace_files', 'read_workspace_file', 'get_fragment']);
    expect(toolsFor(librarian, off, noFiles)).toEqual(['get_fragment']);
    expect(toolsFor(librarian, off, reader)).toEqual(['list_workspace_files', 'read_workspace_file', 'get_fragment']);
  });

  it('chooses the model: locked wins, then the request, the expert, the configuration', () => {
    const pro = { ...main, modelPreference: 'pro' };
    expect(modelFor('asked', pro, { model: 'cfg', modelLocked: true })).toBe('cfg');
    expect(modelFor('asked', pro, { model: 'cfg', modelLocked: false })).toBe('asked');
    expect(modelFor(undefined, pro, { model: 'cfg', modelLocked: false })).toBe('pro');
    expect(modelFor(undefined, main, { model: 'cfg', modelLocked: false })).toBe('cfg');
  });
});
