// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'dashboard/dist/**',
      'node_modules/**',
      'coverage/**',
      '.data/**',
      'test-artifacts/**',
      'bench/results/**',
      'dashboard/src/api/schema.d.ts',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { sourceType: 'module' } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Prettier decides line breaks (.prettierrc.json); this rule can object to a break it makes.
      'no-unexpected-multiline': 'off',
      'no-restricted-syntax': [
        'error',
        {
          selector: 'CallExpression[callee.property.name=/^(only|skip)$/][callee.object.name=/^(it|describe|test)$/]',
          message: 'No focused or skipped tests.',
        },
      ],
    },
  },
  {
    // In-process events go through the typed map (src/in-process-events/in-process-events.ts), so a wrong payload does not compile.
    files: ['src/**/*.ts'],
    ignores: ['src/in-process-events/**', 'src/**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@nestjs/event-emitter',
              importNames: ['EventEmitter2', 'OnEvent'],
              message:
                'Emit through InProcessEmitter and listen with @OnInProcessEvent (src/in-process-events/in-process-events.ts).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      // Node's globals that the benchmark's scripts use.
      globals: {
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        fetch: 'readonly',
        AbortSignal: 'readonly',
        performance: 'readonly',
        setTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['scripts/**/*.mjs'],
    languageOptions: {
      sourceType: 'module',
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', fetch: 'readonly' },
    },
  },
);
