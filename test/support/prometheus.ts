/*
 * Reads a Prometheus text exposition with a parser of that format (parse-prometheus-text-format,
 * which ships no types) into families by name, and finds one sample by its labels.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const parse: (text: string) => Family[] = require('parse-prometheus-text-format');

export interface Sample {
    value?: string;
    labels?: Record<string, string>;
    buckets?: Record<string, string>;
}

export interface Family {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: Sample[];
}

export function families(text: string): Map<string, Family> {
    return new Map(parse(text).map(family => [family.name, family]));
}

/** The value of the sample of `name` whose labels include `labels`; undefined when there is none. */
export function sampleValue(all: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
    const sample = all.get(name)?.metrics.find(m => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
    return sample?.value === undefined ? undefined : Number(sample.value);
}
