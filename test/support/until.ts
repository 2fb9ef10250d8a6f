export const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms));

/** Polls `check` every 25 ms until it holds or `timeoutMs` passed; the last answer counts. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<boolean> {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
        if (await check()) {
            return true;
        }
        await sleep(25);
    }
    return check();
}
