// ioBroker's shared ESLint and Prettier rules (npm run lint), as ioBroker's adapters use them
import config from '@iobroker/eslint-config';

export default [
    ...config,
    {
        languageOptions: {
            parserOptions: {
                projectService: { allowDefaultProject: ['*.mjs'] },
                tsconfigRootDir: import.meta.dirname,
            },
        },
    },
    {
        // comments here say why, where it is not plain (a tag per parameter would mostly repeat its name)
        rules: {
            'jsdoc/require-jsdoc': 'off',
            'jsdoc/require-param': 'off',
            // command handlers and storage ports implement async interfaces, with or without an await
            '@typescript-eslint/require-await': 'off',
            // closures may name what is defined below them: they run later (services are wired that way)
            '@typescript-eslint/no-use-before-define': ['error', { functions: false, classes: false, variables: false, typedefs: false }],
            // a client's query value is echoed as sent (String() on purpose, types say unknown)
            '@typescript-eslint/no-base-to-string': 'off',
            // the TypeBox schema builders' types are the schemas they build: tsc infers and checks them
            '@typescript-eslint/explicit-function-return-type': 'off',
            '@typescript-eslint/explicit-module-boundary-types': 'off',
        },
    },
    {
        ignores: ['build/', 'node_modules/', 'iobroker-data/', 'log/', 'admin/', 'docs-page/', 'tap-snapshots/', '.tap/', 'dev/', '**/*.d.ts'],
    },
];
