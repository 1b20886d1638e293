import { create, createFileRegistry, type DescMethod } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import { EchoService, HealthService } from '@kw/contracts';
import { snakeCase, subjectOf } from './subject.js';

/** A method descriptor of a contract that does not exist in proto/ (yet). */
function methodOf(pkg: string, service: string, method: string): DescMethod {
  const file = create(FileDescriptorProtoSchema, {
    name: `${pkg.replaceAll('.', '/')}/test.proto`,
    package: pkg,
    syntax: 'proto3',
    messageType: [{ name: 'In' }, { name: 'Out' }],
    service: [{ name: service, method: [{ name: method, inputType: `.${pkg}.In`, outputType: `.${pkg}.Out` }] }],
  });
  const desc = createFileRegistry(file, () => undefined).getService(`${pkg}.${service}`);
  if (!desc) throw new Error('test descriptor not built');
  return desc.methods[0];
}

describe('subjectOf', () => {
  it('drops kw. and a service name that repeats the domain', () => {
    expect(subjectOf(methodOf('kw.fragments.v1', 'FragmentsService', 'CreateFragment'))).toBe(
      'fragments.v1.create_fragment',
    );
    expect(subjectOf(methodOf('kw.agent_auth.v1', 'AgentAuthService', 'IssueToken'))).toBe('agent_auth.v1.issue_token');
  });

  it('keeps a service name that differs from the domain', () => {
    expect(subjectOf(methodOf('kw.fragments.v1', 'CollectionsService', 'ListCollections'))).toBe(
      'fragments.v1.collections.list_collections',
    );
    expect(subjectOf(methodOf('kw.search.v2beta1', 'SearchService', 'Query'))).toBe('search.v2beta1.query');
  });

  it('appends the component for contracts every component serves, and requires it', () => {
    expect(subjectOf(HealthService.method.check, 'search')).toBe('platform.v1.health.check.search');
    expect(subjectOf(EchoService.method.echo, 'agent-auth')).toBe('platform.v1.echo.echo.agent-auth');
    expect(() => subjectOf(HealthService.method.check)).toThrow(/target component/);
    expect(() => subjectOf(HealthService.method.check, 'a.b')).toThrow(/Invalid target/);
    expect(() => subjectOf(HealthService.method.check, '>')).toThrow(/Invalid target/);
  });

  it('refuses a target for single-component contracts and unversioned packages', () => {
    expect(() => subjectOf(methodOf('kw.fragments.v1', 'FragmentsService', 'CreateFragment'), 'fragments')).toThrow(
      /takes no target/,
    );
    expect(() => subjectOf(methodOf('kw.fragments', 'FragmentsService', 'CreateFragment'))).toThrow(/versioned/);
    expect(() => subjectOf(methodOf('acme.fragments.v1', 'FragmentsService', 'CreateFragment'))).toThrow(/versioned/);
  });
});

describe('snakeCase', () => {
  it.each([
    ['CreateFragment', 'create_fragment'],
    ['Check', 'check'],
    ['GetHTTPStatus', 'get_http_status'],
    ['ListV2Items', 'list_v2_items'],
  ])('%s -> %s', (input, output) => expect(snakeCase(input)).toBe(output));
});
