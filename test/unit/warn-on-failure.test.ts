import t from 'tap';
import { warnOnFailure } from '../../src/instance/warn-on-failure';

t.test('a failure caught with warnOnFailure is logged with what failed, and the caller goes on', async t => {
    const warnings: string[] = [];
    const log = { warn: (text: string) => void warnings.push(text) };
    const answer = await Promise.reject(new Error('DB closed')).catch(warnOnFailure(log, 'Deleting the API token rest-api.0.tokens.x'));
    t.equal(answer, undefined);
    await Promise.reject('plain text').catch(warnOnFailure(log, 'Closing the URL hooks'));
    t.same(warnings, ['Deleting the API token rest-api.0.tokens.x failed: DB closed', 'Closing the URL hooks failed: plain text']);
});
