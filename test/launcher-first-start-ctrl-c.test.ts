// A first `npm start` stopped by Ctrl-C at any moment (test/support/first-start.ts)
import { firstStartsStopped } from './support/first-start';

firstStartsStopped('Ctrl-C');
