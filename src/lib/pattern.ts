/** ioBroker id patterns: `*` matches any run of characters, everything else literally. */
export function patternToRegExp(pattern: string): RegExp {
    const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
    return new RegExp(`^${escaped}$`);
}

export function isPattern(id: string): boolean {
    return id.includes('*');
}
