/**
 * Nest 12 and several of its dependencies ship ES modules only. Jest runs CommonJS here, so
 * node_modules are transformed too: ts-jest for our TypeScript, SWC for JavaScript.
 */
const transform = {
  // tsconfig.json, each file transpiled on its own (ts-jest reads isolatedModules from the compiler options only).
  '^.+\\.ts$': ['ts-jest', { tsconfig: { isolatedModules: true }, diagnostics: false }],
  '^.+\\.(m?js)$': ['@swc/jest', { module: { type: 'commonjs' }, jsc: { target: 'es2022' } }],
};

const common = {
  rootDir: __dirname,
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  transform,
  transformIgnorePatterns: [],
  // music-metadata's exports name only `import` and `module-sync` entries, which Jest's CommonJS
  // resolver does not take; Node itself loads it with require().
  moduleNameMapper: { '^music-metadata$': '<rootDir>/node_modules/music-metadata/lib/index.js' },
  testEnvironment: 'node',
};

module.exports = {
  // Read only at the top level: a project-level testTimeout is ignored.
  testTimeout: 60_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'multi',
      testMatch: ['<rootDir>/test/multi/**/*.multi-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'browser',
      testMatch: ['<rootDir>/test/browser/**/*.browser-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
