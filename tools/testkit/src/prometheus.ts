import { request } from 'node:http';
import { getMetricsFromIterator, type PromHistogramData, type PromMetric, type PromMetrics } from 'prom2javascript';

export interface Scrape {
  text: string;
  /** Every metric family by its exposed name, as the Prometheus text parser read it. */
  families: PromMetrics;
  family(name: string): PromMetric | undefined;
  /**
   * The sum over the samples of `name` whose labels include `labels`: counter and gauge values, or the
   * observation count of a histogram. 0 when there is none.
   */
  total(name: string, labels?: Record<string, string>): number;
}

const get = (url: string) =>
  new Promise<{ status: number; contentType: string; body: string }>((resolve, reject) => {
    const req = request(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body }));
    });
    req.on('error', reject);
    req.end();
  });

/** GETs a /metrics endpoint and parses it as Prometheus text with a real parser (throws if it is not). */
export async function scrapeMetrics(url: string): Promise<Scrape> {
  const res = await get(url);
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  if (!res.contentType.startsWith('text/plain')) throw new Error(`${url} answered ${res.contentType}, not the Prometheus text format`);
  const families = await getMetricsFromIterator(res.body.split('\n')[Symbol.iterator]());
  const family = (name: string) => families[name];
  return {
    text: res.body,
    families,
    family,
    total(name, labels = {}) {
      const f = family(name);
      if (!f) return 0;
      return (f.data as Array<{ labels: Record<string, string>; value?: number; count?: number }>)
        .filter((sample) => Object.entries(labels).every(([k, v]) => sample.labels[k] === v))
        .reduce((sum, sample) => sum + (f.type === 'histogram' ? (sample as PromHistogramData).count : (sample.value ?? 0)), 0);
    },
  };
}
