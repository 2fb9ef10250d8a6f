// A first `npm start` stopped by SIGTERM at any moment (test/support/first-start.ts)
import { firstStartsStopped } from './support/first-start';

firstStartsStopped('SIGTERM');
