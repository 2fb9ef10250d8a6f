type Json = Record<string, unknown>;

function isPlainObject(value: unknown): value is Json {
    return !!value && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The one-level merge of 4.0.2's `PUT /v1/object/:id`: `null` deletes a key, objects are merged
 * key by key (a nested `null` deletes, arrays replace), anything else is set.
 */
export function mergeObject(target: Json, patch: Json): Json {
    const merged: Json = { ...target };
    for (const [key, value] of Object.entries(patch)) {
        if (value === null || value === undefined) {
            delete merged[key];
        } else if (isPlainObject(value)) {
            const inner: Json = isPlainObject(merged[key]) ? { ...merged[key] } : {};
            for (const [innerKey, innerValue] of Object.entries(value)) {
                if (innerValue === null) {
                    delete inner[innerKey];
                } else {
                    inner[innerKey] = innerValue;
                }
            }
            merged[key] = inner;
        } else {
            merged[key] = value;
        }
    }
    return merged;
}
