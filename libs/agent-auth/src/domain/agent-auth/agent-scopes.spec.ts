import { describe, expect, it } from 'vitest';
import { AppError } from '@kw/platform-errors';
import { AGENT_SCOPES, DEFAULT_AGENT_SCOPES, narrowScopes, parseAgentScope } from './agent-scopes.js';

const refusal = (fn: () => unknown) => {
  try {
    fn();
    return 'accepted';
  } catch (err) {
    return AppError.isAppError(err) ? err.code : 'not an AppError';
  }
};

describe('agent scopes', () => {
  it('never include minting tokens, administration, applications or hosted zones', () => {
    for (const held of ['tokens:manage', 'admin', 'applications:manage', 'hosted-zones:manage', '*'])
      expect(AGENT_SCOPES).not.toContain(held);
    expect(DEFAULT_AGENT_SCOPES.every((s) => AGENT_SCOPES.includes(s))).toBe(true);
    expect(refusal(() => parseAgentScope('fragments:read tokens:manage'))).toBe('invalid_scope');
    expect(refusal(() => parseAgentScope('*'))).toBe('invalid_scope');
  });

  it('reads a space-separated scope, absent when empty, and only narrows', () => {
    expect(parseAgentScope(' fragments:read  search:read fragments:read ')).toEqual(['fragments:read', 'search:read']);
    expect(parseAgentScope('  ')).toBeUndefined();
    expect(narrowScopes(['fragments:read', 'search:read'], ['search:read'])).toEqual(['search:read']);
    expect(narrowScopes(['fragments:read'], undefined)).toEqual(['fragments:read']);
    expect(refusal(() => narrowScopes(['fragments:read'], ['fragments:write']))).toBe('invalid_scope');
  });
});
