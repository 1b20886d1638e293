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
    expect(toolsFor(undefined, off)).toEqual([
      'search',
      'get_fragment',
      'list_fragments',
      'list_collections',
      'related',
      'search_workspace_files',
      'read_workspace_file',
    ]);
    expect(toolsFor(undefined, { structuredQuestions: true, webSearch: false })).toContain('ask_user');
    expect(toolsFor(expert('x', [], ['web_search', 'get_fragment', 'ask_user']), off)).toEqual(['get_fragment']);
    expect(
      toolsFor(expert('x', [], ['web_search', 'ask_user']), { structuredQuestions: true, webSearch: true }),
    ).toEqual(['web_search', 'ask_user']);
  });

  it('chooses the model: locked wins, then the request, the expert, the configuration', () => {
    const pro = { ...main, modelPreference: 'pro' };
    expect(modelFor('asked', pro, { model: 'cfg', modelLocked: true })).toBe('cfg');
    expect(modelFor('asked', pro, { model: 'cfg', modelLocked: false })).toBe('asked');
    expect(modelFor(undefined, pro, { model: 'cfg', modelLocked: false })).toBe('pro');
    expect(modelFor(undefined, main, { model: 'cfg', modelLocked: false })).toBe('cfg');
  });
});
