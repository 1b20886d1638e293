import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

/**
 * Module boundaries are enforced, not just documented:
 * - apps compose; libraries never import apps;
 * - domain libraries talk to each other only through contracts (generated from proto/);
 * - platform libraries know nothing of domains;
 * - a data-plane project never imports control-plane code (a Leaf must build without it).
 */
export default [
  { ignores: ['dist/**', 'node_modules/**', 'libs/contracts/src/gen/**', 'libs/platform/persistence/src/generated/**', '.nx/**', 'coverage/**', 'bench/results/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
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
  {
    // Tests and tooling may reach across boundaries to set up real processes.
    files: ['**/*.spec.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**'],
    rules: { '@nx/enforce-module-boundaries': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
];
