// A stand-in for the comparison worker (worker-comparer's int test): jobs that spin, exhaust the heap, or
// take a set time.
export default async function fixture(job) {
  if (job.kind === 'spin') for (;;);
  if (job.kind === 'heap') {
    const kept = [];
    for (;;) kept.push(new Array(1_000_000).fill(kept.length));
  }
  if (job.kind === 'busy') {
    const until = Date.now() + job.ms;
    while (Date.now() < until);
  }
  return { comparison: { score: job.score ?? 0, summary: 'done', boxes: [] } };
}
