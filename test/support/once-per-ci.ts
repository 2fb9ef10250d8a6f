/*
 * Files whose checks do not depend on the Node version this process runs (a browser drawing pages we
 * serve as static files, an installation on a host of its own) run once per CI run: on the lowest Node
 * major the adapter supports, the first .ci/run tests. They are among the longest files, mostly browser
 * CPU, so repeating them on every major would cost minutes and test nothing new.
 */
const ONCE_ON_MAJOR = 22;

/** Why `what` is skipped on this Node, or undefined where it runs. */
export function notOnThisNode(what: string): string | undefined {
    const major = Number(process.versions.node.split('.')[0]);
    return major === ONCE_ON_MAJOR
        ? undefined
        : `${what} runs once per CI run, on Node ${ONCE_ON_MAJOR} (this is Node ${process.versions.node})`;
}
