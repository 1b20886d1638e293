/**
 * Static checks of the deploy files (no Docker engine or cluster needed): docker-compose.yml,
 * deploy/docker/Dockerfile, deploy/k8s/** and deploy/nats/nats.conf agree with the apps and
 * with the configuration the platform validates at start-up (libs/platform/config).
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { COMPONENTS, KNOWN_ENV_KEYS, loadConfig } from '@kw/platform-config';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (rel: string) => readFileSync(path.join(root, rel), 'utf8');

const APPS = [...COMPONENTS, 'leaf'] as const;
/** Other engineers are creating apps/ now: a name counts if its folder exists or it is a known app. */
const isApp = (name: string) => existsSync(path.join(root, 'apps', name)) || (APPS as readonly string[]).includes(name);
/** Names whose values are credentials: never literal in manifests. */
const SECRET_KEYS = [
  'DATABASE_URL',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'ENROLLMENT_TOKEN',
  'ADMIN_PASSWORD',
  'ADMIN_TOKEN',
];
/**
 * Variables the image sets that AppConfig does not read: NODE_ENV (production mode for libraries)
 * and APP (which dist/apps/<APP>/src/main.js the image starts). Only the Dockerfile may set them.
 */
const IMAGE_ONLY_ENV = ['NODE_ENV', 'APP'];
/** Stand-ins for secret values so the rest of a k8s environment can go through loadConfig. */
const SECRET_PLACEHOLDER: Record<string, string> = {
  DATABASE_URL: 'postgres://user:password@postgres.example:5432/kw',
  ENROLLMENT_TOKEN: 'enrollment-token-placeholder',
  SECRETS_ENCRYPTION_KEY: '0'.repeat(64),
  ADMIN_EMAIL: 'admin@example.com',
  ADMIN_PASSWORD: 'placeholder-password',
  ADMIN_TOKEN: 'placeholder-token-'.padEnd(40, 'x'),
};
/** The first administrator's settings (docs/authentication.md), read by agent-auth on an empty database. */
const ADMIN_KEYS = ['ADMIN_EMAIL', 'ADMIN_PASSWORD', 'ADMIN_TOKEN'];

type Env = Record<string, string>;
type AnyMap = Record<string, any>;

// ---------------------------------------------------------------- docker compose

const composeText = read('docker-compose.yml');
const compose = parse(composeText, { merge: true }) as AnyMap;
const services = compose.services as Record<string, AnyMap>;

/** Compose interpolation with the file's own defaults only (what a plain `docker compose up` gets). */
function interpolate(value: string, where: string): string {
  return value.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}/g,
    (match, name: string, op?: string, fallback?: string) => {
      if (match === '$$') return '$';
      if (op === undefined)
        throw new Error(`${where}: \${${name}} has no default, so \`docker compose up\` needs it set`);
      return fallback ?? '';
    },
  );
}

function rawEnv(service: AnyMap): Env {
  const env = service.environment ?? {};
  const entries: [string, unknown][] = Array.isArray(env)
    ? env.map((line: string) => [line.split('=')[0], line.includes('=') ? line.slice(line.indexOf('=') + 1) : ''])
    : Object.entries(env);
  return Object.fromEntries(entries.map(([k, v]) => [k, v === null || v === undefined ? '' : String(v)]));
}

const resolvedEnv = (name: string): Env =>
  Object.fromEntries(Object.entries(rawEnv(services[name])).map(([k, v]) => [k, interpolate(v, `${name}.${k}`)]));

const dependsOn = (service: AnyMap): Record<string, string> => {
  const deps = service.depends_on ?? {};
  return Array.isArray(deps)
    ? Object.fromEntries(deps.map((d: string) => [d, 'service_started']))
    : Object.fromEntries(Object.entries(deps).map(([k, v]) => [k, (v as AnyMap)?.condition ?? 'service_started']));
};

describe('docker-compose.yml', () => {
  it('runs every component and the leaf, each built from the one Dockerfile with its own APP', () => {
    for (const app of APPS) {
      const service = services[app];
      expect(service, `service ${app}`).toBeDefined();
      expect(service.build?.dockerfile).toBe('deploy/docker/Dockerfile');
      expect(service.build?.context).toBe('.');
      expect(service.build?.args?.APP, `${app} build arg APP`).toBe(app);
      expect(isApp(service.build.args.APP)).toBe(true);
      expect(service.image).toMatch(new RegExp(`^knowledge-workspace/${app}:`));
    }
    for (const [name, service] of Object.entries(services)) {
      if (service.build) expect(isApp(service.build.args?.APP ?? ''), `${name} builds an unknown APP`).toBe(true);
    }
  });

  it('puts the leaf and its database in the leaf profile, and nothing else', () => {
    expect(services.leaf.profiles).toEqual(['leaf']);
    expect(services['leaf-postgres']?.profiles).toEqual(['leaf']);
    for (const [name, service] of Object.entries(services)) {
      if (name !== 'leaf' && name !== 'leaf-postgres')
        expect(service.profiles, `${name} must start with plain \`up\``).toBeUndefined();
    }
    const env = resolvedEnv('leaf');
    expect(new URL(env.DATABASE_URL).hostname).toBe('leaf-postgres');
    const cloud = new URL(env.CLOUD_URL);
    expect([cloud.hostname, cloud.port]).toEqual(['gateway', '3000']);
    expect(env.NATS_URL).toBeUndefined(); // the leaf does not share the Cloud's bus
  });

  it('uses pgvector for both databases and runs Qdrant, MinIO with a bucket job, NATS with the repo config', () => {
    expect(services.postgres.image).toBe('pgvector/pgvector:pg16');
    expect(services['leaf-postgres'].image).toBe('pgvector/pgvector:pg16');
    expect(services.qdrant.image).toMatch(/^qdrant\/qdrant:/);
    expect(services.minio.image).toMatch(/^minio\/minio:/);
    expect(String(services['minio-init'].command)).toContain('mc mb');
    const mounts: string[] = services.nats.volumes;
    const conf = mounts.find((m) => m.endsWith(':/etc/nats/nats.conf:ro') || m.endsWith(':/etc/nats/nats.conf'));
    expect(conf).toBeDefined();
    expect(existsSync(path.join(root, conf!.split(':')[0]))).toBe(true);
    expect(JSON.stringify(services.nats.command)).toContain('/etc/nats/nats.conf');
  });

  it('declares the shared app environment once (x-app-env) and every component gets all of it', () => {
    const shared = compose['x-app-env'] as AnyMap;
    expect(shared).toBeDefined();
    expect(composeText.match(/^\s*RUN_MODE:/gm)).toHaveLength(1);
    expect(composeText.match(/^\s*NATS_URL:/gm)).toHaveLength(1);
    for (const app of COMPONENTS) {
      const env = rawEnv(services[app]);
      for (const [key, value] of Object.entries(shared)) expect(env[key], `${app}.${key}`).toBe(String(value));
    }
  });

  it('sets only variables AppConfig declares, with values AppConfig accepts', () => {
    for (const app of APPS) {
      const env = resolvedEnv(app);
      const unknown = Object.keys(env).filter((k) => !KNOWN_ENV_KEYS.includes(k));
      expect(unknown, `${app} sets unknown variables`).toEqual([]);
      const overrides: Env = app === 'leaf' ? { ENROLLMENT_TOKEN: SECRET_PLACEHOLDER.ENROLLMENT_TOKEN } : {};
      expect(() => loadConfig(env, overrides), app).not.toThrow();
    }
  });

  it('gives each component distributed mode, the shared database and NATS', () => {
    for (const app of COMPONENTS) {
      const env = resolvedEnv(app);
      expect(env.RUN_MODE, app).toBe('distributed');
      expect(env.TARGETS ?? app, app).toBe(app); // each binary defaults to its own component
      expect(new URL(env.DATABASE_URL).hostname, app).toBe('postgres');
      expect(new URL(env.NATS_URL).hostname, app).toBe('nats');
      expect(loadConfig(env).RUN_MODE).toBe('distributed');
    }
    // The files component and the gateway, which streams file bytes itself (docs/files.md), see the
    // same bucket; the bucket the job creates is that one; storage credentials reach only them.
    const STORAGE_USERS = ['files', 'gateway'];
    const files = resolvedEnv('files');
    expect(new URL(files.S3_ENDPOINT).hostname).toBe('minio');
    for (const key of ['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY']) expect(files[key], key).toBeTruthy();
    for (const key of ['S3_ENDPOINT', 'S3_BUCKET', 'S3_REGION'])
      expect(resolvedEnv('gateway')[key], key).toBe(files[key]);
    expect(String(services['minio-init'].command)).toContain(`local/${files.S3_BUCKET}`);
    for (const app of COMPONENTS.filter((a) => !STORAGE_USERS.includes(a)))
      expect(resolvedEnv(app).S3_SECRET_ACCESS_KEY, app).toBeUndefined();
  });

  it('lets the operator choose the first administrator: agent-auth takes ADMIN_* from the shell or .env', () => {
    // Without them a distributed deployment starts with no account and no way to get one.
    const raw = rawEnv(services['agent-auth']);
    for (const key of ADMIN_KEYS) expect(raw[key], key).toBe(`\${${key}:-}`);
    // Unset (a plain `up`) they are empty, which the configuration reads as not set.
    expect(() => loadConfig(resolvedEnv('agent-auth'))).not.toThrow();
    const chosen = Object.fromEntries(ADMIN_KEYS.map((k) => [k, SECRET_PLACEHOLDER[k]]));
    expect(loadConfig({ ...resolvedEnv('agent-auth'), ...chosen })).toMatchObject(chosen);
  });

  it('reads credentials from the environment, with local-only defaults', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const [key, value] of Object.entries(rawEnv(service))) {
        if (/PASSWORD|SECRET|ACCESS_KEY|TOKEN/.test(key))
          expect(value, `${name}.${key}`).toMatch(/^\$\{[A-Z][A-Z0-9_]*:?-[^}]*\}$/);
        if (key === 'DATABASE_URL')
          expect(new URL(value.replace(/\$\{[^}]*\}/g, 'x')).password, `${name}.${key}`).toBe('x');
      }
    }
  });

  it('starts components after healthy infrastructure; only the gateway and the leaf publish ports', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const [dep, condition] of Object.entries(dependsOn(service))) {
        expect(services[dep], `${name} depends on missing ${dep}`).toBeDefined();
        // Built services are healthy through the image's HEALTHCHECK; others need their own.
        if (condition === 'service_healthy')
          expect(services[dep].healthcheck ?? services[dep].build, `${dep} has no healthcheck`).toBeDefined();
      }
    }
    for (const infra of ['postgres', 'nats', 'qdrant', 'minio', 'leaf-postgres'])
      expect(services[infra].healthcheck?.test, infra).toBeDefined();
    for (const app of COMPONENTS) {
      const deps = dependsOn(services[app]);
      expect(deps.postgres, app).toBe('service_healthy');
      expect(deps.nats, app).toBe('service_healthy');
      expect(services[app].ports ?? [], app).toEqual(app === 'gateway' ? ['3000:3000'] : []);
    }
    expect(dependsOn(services.files)['minio-init']).toBe('service_completed_successfully');
    expect(dependsOn(services.leaf)['leaf-postgres']).toBe('service_healthy');
    expect(dependsOn(services.leaf).gateway).toBe('service_healthy');
  });
});

// ---------------------------------------------------------------- image

describe('deploy/docker/Dockerfile', () => {
  const dockerfile = read('deploy/docker/Dockerfile');
  const lines = dockerfile
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const stages = dockerfile.split(/^FROM /m).slice(1);
  const runtime = stages.at(-1)!;

  it('builds on Node 24 (the current LTS) slim with npm ci, npm run build and a dev-dependency prune', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24[\w.-]*-slim$/m);
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/RUN .*npm ci\b/);
    expect(dockerfile).toMatch(/npm run build/);
    expect(dockerfile).toMatch(/npm prune --omit=dev/);
  });

  it('runs as a non-root user under tini, with a HEALTHCHECK', () => {
    const user = lines.filter((l) => l.startsWith('USER ')).at(-1);
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user!.slice(5).trim());
    expect(runtime).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--"\]/m);
    expect(runtime).toMatch(/^HEALTHCHECK .*CMD/m);
    // exec form of node under sh -c, or node would not be tini's child and would miss SIGTERM
    expect(runtime).toMatch(/^CMD \["sh", "-c", "exec node dist\/apps\/\$\{APP\}\/src\/main\.js"\]/m);
  });

  it('chooses the app with ARG APP / ENV APP, defaulting to an existing app', () => {
    const arg = runtime.match(/^ARG APP=(\S+)$/m);
    expect(arg?.[1] && isApp(arg[1])).toBe(true);
    expect(runtime).toMatch(/^ENV APP=\$\{APP\}$/m);
  });

  it('sets only known variables (plus the image-only NODE_ENV and APP) and copies files that exist', () => {
    const envKeys = lines
      .filter((l) => l.startsWith('ENV '))
      .flatMap((l) => [...l.slice(4).matchAll(/([A-Za-z_][A-Za-z0-9_]*)=/g)].map((m) => m[1]));
    expect(envKeys.length).toBeGreaterThan(0);
    expect(envKeys.filter((k) => !KNOWN_ENV_KEYS.includes(k) && !IMAGE_ONLY_ENV.includes(k))).toEqual([]);
    for (const line of lines.filter((l) => l.startsWith('COPY ') && !l.includes('--from='))) {
      const sources = line
        .split(/\s+/)
        .slice(1, -1)
        .filter((s) => s !== '.' && !s.startsWith('--'));
      for (const source of sources) expect(existsSync(path.join(root, source)), source).toBe(true);
    }
    // What the runtime takes from the build stage, other than build output, comes from the repo.
    for (const line of lines.filter((l) => l.startsWith('COPY --from=build '))) {
      const source = line.split(/\s+/)[2].replace(/^\/app\//, '');
      if (!['node_modules', 'dist'].includes(source)) expect(existsSync(path.join(root, source)), source).toBe(true);
    }
  });

  it('keeps .dockerignore from dropping what the build needs', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git']));
    for (const needed of [
      'apps',
      'libs',
      'scripts',
      'package.json',
      'package-lock.json',
      'tsconfig.base.json',
      'deploy',
      'deploy/docker',
    ]) {
      expect(ignored, needed).not.toContain(needed);
    }
  });
});

// ---------------------------------------------------------------- kubernetes

interface Manifest {
  file: string;
  doc: AnyMap;
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return yamlFiles(full);
    return /\.ya?ml$/.test(entry) ? [full] : [];
  });
}

function loadManifests(rel: string): Manifest[] {
  return yamlFiles(path.join(root, rel))
    .filter((file) => path.basename(file) !== 'kustomization.yaml')
    .flatMap((file) =>
      parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => {
        expect(doc.errors, file).toEqual([]);
        return { file, doc: doc.toJS() as AnyMap };
      }),
    )
    .filter((m) => m.doc);
}

const k8s = { cloud: loadManifests('deploy/k8s/cloud'), leaf: loadManifests('deploy/k8s/leaf') };
const all = [...k8s.cloud, ...k8s.leaf];
const ofKind = (ms: Manifest[], kind: string) => ms.filter((m) => m.doc.kind === kind).map((m) => m.doc);
const named = (ms: Manifest[], kind: string, name: string) => ofKind(ms, kind).find((d) => d.metadata?.name === name);
const containerOf = (deployment: AnyMap): AnyMap => deployment.spec.template.spec.containers[0];

/** The environment a container gets: envFrom ConfigMaps (keys from this kustomization) and env entries. */
function containerEnv(ms: Manifest[], container: AnyMap): { names: string[]; values: Env; entries: AnyMap[] } {
  const values: Env = {};
  const names: string[] = [];
  for (const source of container.envFrom ?? []) {
    expect(source.secretRef, 'envFrom secretRef hides which variables are set; use env + secretKeyRef').toBeUndefined();
    const cm = named(ms, 'ConfigMap', source.configMapRef?.name);
    expect(cm, `ConfigMap ${source.configMapRef?.name}`).toBeDefined();
    for (const [key, value] of Object.entries(cm!.data ?? {})) {
      names.push(`${source.prefix ?? ''}${key}`);
      values[`${source.prefix ?? ''}${key}`] = String(value);
    }
  }
  for (const entry of container.env ?? []) {
    names.push(entry.name);
    values[entry.name] = entry.value ?? SECRET_PLACEHOLDER[entry.name] ?? 'placeholder';
  }
  return { names, values, entries: container.env ?? [] };
}

function checkProbes(deployment: AnyMap, ready: string, live: string) {
  const c = containerOf(deployment);
  const ports = new Map<string, number>((c.ports ?? []).map((p: AnyMap) => [p.name, p.containerPort]));
  for (const [probe, want] of [
    ['readinessProbe', ready],
    ['livenessProbe', live],
  ] as const) {
    expect(c[probe]?.httpGet?.path, `${deployment.metadata.name} ${probe}`).toBe(want);
    const port = c[probe].httpGet.port;
    expect(typeof port === 'number' || ports.has(port), `${deployment.metadata.name} ${probe} port ${port}`).toBe(true);
  }
  return ports;
}

describe('deploy/k8s kustomizations', () => {
  for (const dir of ['deploy/k8s/cloud', 'deploy/k8s/leaf']) {
    it(`${dir}/kustomization.yaml lists resources that exist, and every manifest of the folder`, () => {
      const kustomization = parse(read(`${dir}/kustomization.yaml`)) as AnyMap;
      expect(kustomization.kind).toBe('Kustomization');
      const resources: string[] = kustomization.resources;
      expect(resources.length).toBeGreaterThan(0);
      for (const r of resources) expect(existsSync(path.join(root, dir, r)), `${dir}: ${r}`).toBe(true);
      const manifests = readdirSync(path.join(root, dir)).filter(
        (f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml',
      );
      expect([...manifests].sort()).toEqual([...resources].sort());
    });
  }
});

describe('deploy/k8s/cloud', () => {
  const ms = k8s.cloud;
  const shared = named(ms, 'ConfigMap', 'kw-config');
  const shutdownSeconds = (values: Env) => Number(values.SHUTDOWN_TIMEOUT_MS ?? 10_000) / 1000;

  it('has a Deployment and a Service for every component, each running its own image', () => {
    for (const app of COMPONENTS) {
      const deployment = named(ms, 'Deployment', app);
      expect(deployment, `Deployment ${app}`).toBeDefined();
      const image: string = containerOf(deployment!).image;
      expect(image).toMatch(new RegExp(`^knowledge-workspace/${app}(:|$)`));
      expect(isApp(image.split('/')[1].split(':')[0])).toBe(true);
      const service = named(ms, 'Service', app);
      expect(service, `Service ${app}`).toBeDefined();
      const podLabels = deployment!.spec.template.metadata.labels;
      expect(deployment!.spec.selector.matchLabels).toEqual(expect.objectContaining(service!.spec.selector));
      for (const [k, v] of Object.entries(service!.spec.selector)) expect(podLabels[k]).toBe(v);
      const portNames = (containerOf(deployment!).ports ?? []).map((p: AnyMap) => p.name);
      for (const p of service!.spec.ports) expect(portNames, `${app} Service targetPort`).toContain(p.targetPort);
    }
    for (const d of ofKind(ms, 'Deployment')) expect(isApp(d.metadata.name), d.metadata.name).toBe(true);
  });

  it('sets only known variables, with values AppConfig accepts, distributed with database and NATS', () => {
    expect(shared).toBeDefined();
    for (const app of COMPONENTS) {
      const { names, values, entries } = containerEnv(ms, containerOf(named(ms, 'Deployment', app)!));
      expect(
        names.filter((k) => !KNOWN_ENV_KEYS.includes(k)),
        `${app} sets unknown variables`,
      ).toEqual([]);
      expect(new Set(names).size, `${app} sets a variable twice`).toBe(names.length);
      expect(values.RUN_MODE, app).toBe('distributed');
      expect(values.TARGETS ?? app, app).toBe(app);
      expect(values.NATS_URL, app).toBeTruthy();
      expect(
        entries.find((e) => e.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef,
        `${app} DATABASE_URL`,
      ).toBeDefined();
      expect(() => loadConfig(values), app).not.toThrow();
    }
    // The webhooks, workspaces and chat components refuse to start distributed without the key
    // that seals their secrets (webhook secrets; the handoff signing keys of hosted zones; vault).
    for (const app of ['webhooks', 'workspaces', 'chat']) {
      const env = containerEnv(ms, containerOf(named(ms, 'Deployment', app)!));
      expect(env.entries.find((e) => e.name === 'SECRETS_ENCRYPTION_KEY')?.valueFrom?.secretKeyRef, app).toBeDefined();
    }
    for (const app of ['files', 'gateway']) {
      const env = containerEnv(ms, containerOf(named(ms, 'Deployment', app)!));
      for (const key of ['S3_ENDPOINT', 'S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'])
        expect(env.names, `${app}: ${key}`).toContain(key);
    }
  });

  it('gives agent-auth the first administrator from an optional Secret, so the first sign-in needs no edit', () => {
    const { entries } = containerEnv(ms, containerOf(named(ms, 'Deployment', 'agent-auth')!));
    const refs = ADMIN_KEYS.map((key) => entries.find((e) => e.name === key)?.valueFrom?.secretKeyRef);
    for (const [i, ref] of refs.entries()) {
      expect(ref, ADMIN_KEYS[i]).toBeDefined();
      // Optional: a cluster that never creates it (or deletes it after the first sign-in) still starts.
      expect(ref.optional, ADMIN_KEYS[i]).toBe(true);
    }
    expect(new Set(refs.map((r) => r.name)).size).toBe(1);
  });

  it('probes /readyz and /healthz on the metrics port (gateway: its HTTP port), with resources and a drain period', () => {
    for (const app of COMPONENTS) {
      const deployment = named(ms, 'Deployment', app)!;
      const { values } = containerEnv(ms, containerOf(deployment));
      const ports = checkProbes(deployment, '/readyz', '/healthz');
      const want = app === 'gateway' ? Number(values.PORT ?? 3000) : Number(values.METRICS_PORT ?? 9464);
      for (const probe of ['readinessProbe', 'livenessProbe'])
        expect(ports.get(containerOf(deployment)[probe].httpGet.port), `${app} ${probe}`).toBe(want);
      const c = containerOf(deployment);
      expect(c.resources?.requests?.cpu && c.resources?.requests?.memory, `${app} requests`).toBeTruthy();
      expect(c.resources?.limits?.memory, `${app} memory limit`).toBeTruthy();
      expect(deployment.spec.template.spec.terminationGracePeriodSeconds, app).toBeGreaterThan(shutdownSeconds(values));
      expect(deployment.spec.template.spec.securityContext?.runAsNonRoot, app).toBe(true);
    }
  });

  it('protects the gateway with a PodDisruptionBudget and exposes it through an Ingress', () => {
    const labels = named(ms, 'Deployment', 'gateway')!.spec.template.metadata.labels;
    const pdbs = ofKind(ms, 'PodDisruptionBudget').filter((p) =>
      Object.entries(p.spec.selector.matchLabels).every(([k, v]) => labels[k] === v),
    );
    expect(pdbs).toHaveLength(1);
    expect(pdbs[0].spec.minAvailable ?? pdbs[0].spec.maxUnavailable).toBeDefined();
    expect(named(ms, 'Deployment', 'gateway')!.spec.replicas).toBeGreaterThan(pdbs[0].spec.minAvailable ?? 0);
    const ingresses = ofKind(ms, 'Ingress');
    expect(ingresses).toHaveLength(1);
    const service = named(ms, 'Service', 'gateway')!;
    const backends = ingresses[0].spec.rules.flatMap((r: AnyMap) => r.http.paths.map((p: AnyMap) => p.backend.service));
    expect(backends.length).toBeGreaterThan(0);
    for (const b of backends) {
      expect(b.name).toBe('gateway');
      expect(service.spec.ports.some((p: AnyMap) => p.name === b.port.name || p.port === b.port.number)).toBe(true);
    }
  });
});

describe('deploy/k8s/leaf', () => {
  const ms = k8s.leaf;

  it('runs the leaf image with its Service, ConfigMap, secret references and probes', () => {
    const deployment = named(ms, 'Deployment', 'leaf');
    expect(deployment).toBeDefined();
    expect(ofKind(ms, 'Deployment')).toHaveLength(1);
    const c = containerOf(deployment!);
    expect(c.image).toMatch(/^knowledge-workspace\/leaf(:|$)/);
    expect(isApp('leaf')).toBe(true);
    expect(named(ms, 'Service', 'leaf')?.spec.selector).toEqual(deployment!.spec.selector.matchLabels);
    const { names, values, entries } = containerEnv(ms, c);
    expect(
      names.filter((k) => !KNOWN_ENV_KEYS.includes(k)),
      'leaf sets unknown variables',
    ).toEqual([]);
    for (const key of ['DATABASE_URL', 'ENROLLMENT_TOKEN', 'SECRETS_ENCRYPTION_KEY'])
      expect(entries.find((e) => e.name === key)?.valueFrom?.secretKeyRef, key).toBeDefined();
    expect(values.CLOUD_URL).toBeTruthy();
    expect(values.RUN_MODE ?? 'embedded').toBe('embedded'); // NATS is optional for a leaf
    expect(() => loadConfig(values)).not.toThrow();
    const ports = checkProbes(deployment!, '/readyz', '/healthz');
    expect(ports.get(c.readinessProbe.httpGet.port)).toBe(Number(values.PORT ?? 3000));
    for (const volume of deployment!.spec.template.spec.volumes ?? []) {
      if (volume.persistentVolumeClaim)
        expect(named(ms, 'PersistentVolumeClaim', volume.persistentVolumeClaim.claimName), volume.name).toBeDefined();
    }
    // A ReadWriteOnce claim (if the leaf ever needs one) cannot be shared by a rolling update's second pod.
    if (ofKind(ms, 'PersistentVolumeClaim').length > 0) {
      expect(deployment!.spec.replicas).toBe(1);
      expect(deployment!.spec.strategy?.type).toBe('Recreate');
    }
    expect(deployment!.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(
      Number(values.SHUTDOWN_TIMEOUT_MS ?? 10_000) / 1000,
    );
  });
});

describe('deploy/k8s secrets', () => {
  it('commits no secret values: no Secret data, credentials only through secretKeyRef', () => {
    for (const { file, doc } of all) {
      if (doc.kind === 'Secret') expect(doc.data ?? doc.stringData, `${file}: Secret carries values`).toBeUndefined();
      if (doc.kind === 'ConfigMap') {
        for (const [key, value] of Object.entries(doc.data ?? {})) {
          expect(SECRET_KEYS, `${file}: ${key} belongs in a Secret`).not.toContain(key);
          expect(String(value), `${file}: ${key} embeds credentials`).not.toMatch(/:\/\/[^/@\s]+:[^/@\s]+@/);
        }
      }
      for (const c of doc.spec?.template?.spec?.containers ?? []) {
        for (const entry of c.env ?? []) {
          if (SECRET_KEYS.includes(entry.name)) {
            expect(entry.value, `${file}: ${entry.name} is literal`).toBeUndefined();
            expect(entry.valueFrom?.secretKeyRef?.name, `${file}: ${entry.name}`).toBeTruthy();
          }
        }
      }
    }
  });
});

describe('deploy/nats/nats.conf', () => {
  const conf = read('deploy/nats/nats.conf').replace(/#.*$/gm, '');

  it('enables JetStream with a store dir and sets the max payload', () => {
    expect(conf).toMatch(/jetstream\s*\{[^}]*store_dir:\s*\S+[^}]*\}/);
    expect(conf).toMatch(/^\s*max_payload:\s*\d+\s*[KM]B\s*$/m);
    expect(conf).toMatch(/^\s*http_port:\s*8222\s*$/m); // the compose healthcheck asks :8222/healthz
    expect(JSON.stringify(services.nats.healthcheck.test)).toContain(':8222/healthz');
  });
});
