import { sizesTables } from '../report';
import { benchSizes } from './sizes';

// The sizes are measurements, printed by `pnpm bench`; here only that every entry builds with the
// shared settings into what it claims to be.

describe('the sizes suite', () => {
  it('builds ours, both peers and the script-tag file, and reports them against the smaller peer', async () => {
    const report = await benchSizes();
    const all = [report.ours, ...report.peers, ...report.extra, report.scriptTag];
    for (const size of all) {
      expect(size.minBytes).toBeGreaterThan(0);
      expect(size.gzipBytes).toBeGreaterThan(0);
      expect(size.gzipBytes).toBeLessThan(size.minBytes);
    }
    // Each bundle holds the SDK it names.
    expect(report.ours.largest.map((l) => l.input).join()).toContain('sdk-core/src/');
    expect(report.peers[0]!.largest.map((l) => l.input).join()).toContain('@sentry');
    expect(report.peers[1]!.largest.map((l) => l.input).join()).toContain('@opentelemetry');
    const smaller = Math.min(...report.peers.map((p) => p.gzipBytes));
    expect(report.ratio).toBe(report.ours.gzipBytes / smaller);
    const text = sizesTables(report);
    for (const size of all) expect(text).toContain(size.name);
  });
});
