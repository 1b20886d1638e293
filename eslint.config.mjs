import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

/**
 * Module boundaries are enforced, not just documented:
 * - apps compose; libraries never import apps;
 * - domain libraries talk to each other only through contracts (generated from proto/);
 * - platform libraries know nothing of domains;
 * - a data-plane project never imports control-plane code (a Leaf must build without it).
 */
const databaseImports = {
  paths: [
    { name: 'pg', message: "Database access lives in the component's persistence/ (docs/architecture.md)." },
    {
      name: '@kw/platform-persistence',
      message: "Database clients and Prisma types are for the component's persistence/ only (docs/architecture.md).",
    },
    {
      name: '@kw/platform-runtime',
      importNames: ['DATABASE'],
      message: "The pg pool is for the component's persistence/ only (docs/architecture.md).",
    },
  ],
  patterns: [{ group: ['@prisma/*', '**/generated/**'], message: "Prisma is for the component's persistence/ only." }],
};
/** Outside persistence/ a component injects repositories; only its Nest modules register the client. */
const databaseClientFile = {
  group: ['**/persistence/*-database', '**/persistence/*-database.js'],
  message: 'Inject a repository of persistence/, never the Prisma client itself (docs/architecture.md).',
};
const rawSql = [
  {
    selector: 'TaggedTemplateExpression[tag.property.name=/^\\$(queryRaw|executeRaw)$/]',
    message: 'SQL lives in repository files under persistence/ (docs/architecture.md).',
  },
  {
    selector: 'CallExpression[callee.property.name=/^\\$(queryRaw|executeRaw)(Unsafe)?$/]',
    message: 'SQL lives in repository files under persistence/ (docs/architecture.md).',
  },
];

/** Rules for the components that follow the layout. */
function layoutRules(components) {
  const under = (folders) => components.flatMap((c) => folders.map((f) => `libs/${c}/src/${f}/**/*.ts`));
  const notSpecs = ['**/*.spec.ts'];
  return [
    {
      files: under(['service', 'events', 'domain']),
      ignores: notSpecs,
      rules: {
        'no-restricted-imports': [
          'error',
          { ...databaseImports, patterns: [...databaseImports.patterns, databaseClientFile] },
        ],
        'no-restricted-syntax': ['error', ...rawSql],
      },
    },
    {
      // The composition point: a component's Nest modules list persistence/'s client providers.
      files: components.flatMap((c) => [`libs/${c}/src/service/**/*.module.ts`, `libs/${c}/src/events/**/*.module.ts`]),
      ignores: notSpecs,
      rules: { 'no-restricted-imports': ['error', databaseImports] },
    },
    {
      files: under(['http']),
      ignores: notSpecs,
      rules: {
        'no-restricted-imports': [
          'error',
          {
            ...databaseImports,
            patterns: [
              ...databaseImports.patterns,
              databaseClientFile,
              {
                group: ['**/persistence/**'],
                message: 'The HTTP edge calls the service through its contract, never persistence/.',
              },
            ],
          },
        ],
        'no-restricted-syntax': ['error', ...rawSql],
      },
    },
  ];
}

export default [
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'libs/contracts/src/gen/**',
      'libs/platform/persistence/src/generated/**',
      '.nx/**',
      'coverage/**',
      'bench/results/**',
    ],
  },
  ...tseslint.configs.recommended,
  // Formatting is Prettier's (`npm run format`; `npm run lint` checks it); ESLint keeps to correctness.
  prettier,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      // Prettier cannot break a long string; this keeps descriptions split into readable pieces.
      'max-len': ['error', { code: 280, ignoreUrls: true }],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          banTransitiveDependencies: false,
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:domain', 'type:platform', 'type:contracts'] },
            { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:platform', 'type:contracts'] },
            { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:platform', 'type:contracts'] },
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'] },
            // The published client stands alone: it depends on nothing of the platform.
            { sourceTag: 'type:client', onlyDependOnLibsWithTags: [] },
            { sourceTag: 'plane:data', onlyDependOnLibsWithTags: ['plane:data', 'plane:shared'] },
            { sourceTag: 'plane:control', onlyDependOnLibsWithTags: ['plane:control', 'plane:shared'] },
            { sourceTag: 'plane:shared', onlyDependOnLibsWithTags: ['plane:shared'] },
            { sourceTag: 'plane:edge', onlyDependOnLibsWithTags: ['plane:control', 'plane:data', 'plane:shared'] },
          ],
        },
      ],
    },
  },
  // The component layout (docs/architecture.md): only a component's persistence/ reaches the
  // database (clients, pools, generated Prisma code, raw SQL); the HTTP edge never imports it.
  ...layoutRules(['agent-auth', 'chat', 'files', 'fragments', 'leaf', 'mcp', 'search', 'webhooks', 'workspaces']),
  {
    // Tests and tooling may reach across boundaries to set up real processes.
    files: ['**/*.spec.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**'],
    rules: { '@nx/enforce-module-boundaries': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
];
