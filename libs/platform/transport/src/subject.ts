import type { DescMethod } from '@bufbuild/protobuf';

/**
 * Subjects are derived from the method descriptor, never written by hand, so a subject can
 * only name a method that exists in proto/ and always carries the contract's version.
 *
 * Rule, for `kw.<domain...>.<version>.<Service>/<Method>`:
 *   subject = <domain...>.<version>[.<service>].<method>[.<target>]
 * - the leading `kw.` package segment is dropped (every contract has it);
 * - <service> is the service name without its `Service` suffix, in snake_case, and is left
 *   out when it repeats the last domain segment (FragmentsService in kw.fragments.v1);
 * - <method> is the method name in snake_case;
 * - <target> is the component name, present exactly for contracts that every component
 *   serves (see PER_COMPONENT_SERVICES): a caller asks one component at a time.
 *
 * Examples:
 *   kw.fragments.v1.FragmentsService/CreateFragment -> fragments.v1.create_fragment
 *   kw.platform.v1.HealthService/Check, "search"    -> platform.v1.health.check.search
 */

/** Contracts served by every component; their subjects end with the component name. */
export const PER_COMPONENT_SERVICES: ReadonlySet<string> = new Set([
  'kw.platform.v1.HealthService',
  'kw.platform.v1.EchoService',
]);

const VERSION = /^v\d+((alpha|beta)\d*)?$/;
const TARGET = /^[a-z0-9][a-z0-9_-]*$/;

/** `CreateFragment` -> `create_fragment`, `GetHTTPStatus` -> `get_http_status`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

export function isPerComponent(method: DescMethod): boolean {
  return PER_COMPONENT_SERVICES.has(method.parent.typeName);
}

/** Subjects of single-component methods, computed once: every call asks for one. */
const SUBJECTS = new WeakMap<DescMethod, string>();

/** The NATS subject of a method; `target` is required for, and only for, per-component contracts. */
export function subjectOf(method: DescMethod, target?: string): string {
  if (target === undefined) {
    const known = SUBJECTS.get(method);
    if (known !== undefined) return known;
  }
  const subject = computeSubject(method, target);
  if (target === undefined) SUBJECTS.set(method, subject);
  return subject;
}

function computeSubject(method: DescMethod, target?: string): string {
  const service = method.parent;
  const segments = service.file.proto.package.split('.');
  const [root, ...rest] = segments;
  const version = rest.at(-1) ?? '';
  if (root !== 'kw' || rest.length < 2 || !VERSION.test(version)) {
    throw new Error(`Contract ${service.typeName} must live in a versioned kw.<domain>.<version> package`);
  }
  const domain = rest.slice(0, -1);
  const serviceToken = snakeCase(service.name.replace(/Service$/, ''));
  const tokens = serviceToken === domain.at(-1) ? [...rest] : [...rest, serviceToken];
  tokens.push(snakeCase(method.name));

  if (isPerComponent(method)) {
    if (!target)
      throw new Error(`${service.typeName}/${method.name} is served by every component: name the target component`);
    if (!TARGET.test(target)) throw new Error(`Invalid target component name: ${JSON.stringify(target)}`);
    tokens.push(target);
  } else if (target !== undefined) {
    throw new Error(`${service.typeName}/${method.name} is served by one component: it takes no target`);
  }
  return tokens.join('.');
}
