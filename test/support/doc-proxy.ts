/*
 * Reverse proxies run from the configurations the docs show, as written: the test replaces only the
 * marked addresses and ports, and runs the proxy unprivileged with its files in a temporary dir.
 * Installs nothing: callers skip without the binary (.ci/run installs Debian's nginx-light and haproxy).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../scripts/embedded-storage';
import { rawRequest } from './raw-request';

function binary(name: string): string | undefined {
    return [`/usr/sbin/${name}`, `/usr/local/sbin/${name}`].find(existsSync) ?? (spawnSync(name, ['-v']).error ? undefined : name);
}

export const NGINX = binary('nginx');
export const HAPROXY = binary('haproxy');

/** The one code block of `lang` in `docs/en/<doc>`. */
export function documentedConfig(doc: string, lang: string): string {
    const text = readFileSync(join(PROJECT_ROOT, 'docs', 'en', doc), 'utf8');
    const blocks = [...text.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map(m => m[1]);
    if (blocks.length !== 1) {
        throw new Error(`expected one ${lang} block in docs/en/${doc}, found ${blocks.length}`);
    }
    return blocks[0];
}

/** Replaces each key by its value, failing when the documented text no longer holds the key. */
export function substitute(config: string, replacements: Record<string, string>): string {
    let result = config;
    for (const [from, to] of Object.entries(replacements)) {
        if (!result.includes(from)) {
            throw new Error(`the documented configuration no longer contains "${from}"`);
        }
        result = result.split(from).join(to);
    }
    return result;
}

export interface RunningProxy {
    stop(): Promise<void>;
}

async function started(proc: ChildProcess, probeUrl: string, dir: string, logFile?: string): Promise<RunningProxy> {
    let output = '';
    proc.stdout?.on('data', d => (output += d));
    proc.stderr?.on('data', d => (output += d));
    const log = (): string => output + (logFile && existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
    const stop = async (): Promise<void> => {
        if (proc.exitCode === null && proc.signalCode === null) {
            const exited = new Promise(resolve => proc.once('exit', resolve));
            proc.kill('SIGTERM');
            await exited;
        }
        rmSync(dir, { recursive: true, force: true });
    };
    const deadline = Date.now() + 10_000;
    for (;;) {
        if (proc.exitCode !== null) {
            await stop();
            throw new Error(`the proxy stopped: ${log()}`);
        }
        if (await rawRequest(probeUrl).then(res => res.status < 500, () => false)) {
            return { stop };
        }
        if (Date.now() > deadline) {
            await stop();
            throw new Error(`the proxy did not answer ${probeUrl}: ${log()}`);
        }
        await new Promise(r => setTimeout(r, 100));
    }
}

/** nginx in the foreground, one process, its temporary files and logs in a directory of its own. */
export function runNginx(config: string, probeUrl: string): Promise<RunningProxy> {
    const dir = mkdtempSync(join(tmpdir(), 'rest-api-nginx-'));
    const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(kind => {
        mkdirSync(join(dir, kind));
        return `${kind}_temp_path ${join(dir, kind)};`;
    });
    if (!/^http \{$/m.test(config)) {
        throw new Error('the nginx configuration has no "http {" line');
    }
    writeFileSync(join(dir, 'nginx.conf'), config.replace(/^http \{$/m, `http {\n    access_log off;\n    ${temp.join('\n    ')}`));
    const proc = spawn(NGINX!, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', `daemon off; master_process off; pid ${dir}/nginx.pid; error_log ${dir}/error.log;`], { stdio: ['ignore', 'pipe', 'pipe'] });
    return started(proc, probeUrl, dir, join(dir, 'error.log'));
}

/** HAProxy in the foreground (`-db`), its configuration checked first (`-c`). */
export function runHaproxy(config: string, probeUrl: string): Promise<RunningProxy> {
    const dir = mkdtempSync(join(tmpdir(), 'rest-api-haproxy-'));
    const file = join(dir, 'haproxy.cfg');
    writeFileSync(file, config);
    const check = spawnSync(HAPROXY!, ['-c', '-f', file], { encoding: 'utf8' });
    if (check.status !== 0) {
        rmSync(dir, { recursive: true, force: true });
        return Promise.reject(new Error(`haproxy refuses the configuration: ${check.stdout}${check.stderr}`));
    }
    const proc = spawn(HAPROXY!, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    return started(proc, probeUrl, dir);
}

/** tap's `skip` for a test that needs `binary`: never under CI, where a missing package fails the test. */
export function skipWithout(binary: string | undefined, pkg: string): string | false {
    return binary || process.env.CI ? false : `no ${pkg} binary (apt-get install ${pkg}; .ci/run installs it)`;
}
