// ioBroker's shared Prettier settings, which `npm run lint` checks through ESLint
import prettierConfig from '@iobroker/eslint-config/prettier.config.mjs';

export default prettierConfig;
