// ESLint with typescript-eslint's recommended type-checked rules over src/ (docs/conventions.md).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'build/**', 'node_modules/**', 'coverage/**', '.data/**', 'packages/*/dist/**', 'packages/*/src/generated/**'] },
  {
    files: ['src/**/*.ts', 'packages/*/src/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Handlers and adapters implement async interfaces; an async body without await is how they return a promise.
      '@typescript-eslint/require-await': 'off',
      // A leading underscore names what is deliberately unused (a destructured field left out).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
);
