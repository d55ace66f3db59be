import { cutTracePage, type PageSpan, type TracePage, tracePageLength } from './trace-page-cut';

// A page of a trace: a root with children, one child starting before its parent (clocks disagree).
// Page order is start time, then span id; every span carries padding so the budget bites.

const at = (ms: number) => new Date(Date.UTC(2026, 10, 29, 12, 0, 0, ms)).toISOString();
const PAD = 'x'.repeat(200);

function span(id: string, ms: number, children: PageSpan[] = [], orphan = false): PageSpan & { pad: string } {
  return { span_id: id, start_time: at(ms), orphan, children, pad: PAD };
}

/** root(0) > a(10) > [early(5), a2(20)], root > b(30); early starts before its parent a. */
function page(): TracePage & { summary: string } {
  return {
    spans: [span('root', 0, [span('a', 10, [span('early', 5), span('a2', 20)]), span('b', 30)])],
    has_more: false,
    truncated: false,
    summary: 'whole trace',
  };
}

const ids = (nodes: PageSpan[]): string[] => nodes.flatMap((n) => [n.span_id, ...ids(n.children)]);
const size = (v: unknown) => JSON.stringify(v).length;

describe('trace.get page cut', () => {
  it('counts every span of the page', () => {
    expect(tracePageLength(page())).toBe(5);
  });

  it('keeps the earliest spans that fit, the summary whole, and a cursor at the first left out', () => {
    const whole = page();
    const cursors: number[] = [];
    // Room for three spans of about 300 characters and the cut's own fields.
    const budget = size({ ...whole, spans: [] }) + 1050;
    const cut = cutTracePage(whole, budget, (kept) => {
      cursors.push(kept);
      return `cursor@${kept}`;
    });
    expect(size(cut)).toBeLessThanOrEqual(budget);
    // Page order: root(0), early(5), a(10), a2(20), b(30).
    expect(ids(cut.spans)).toEqual(['root', 'a', 'early']);
    expect(cut).toMatchObject({
      summary: 'whole trace',
      has_more: true,
      truncated: true,
      next_cursor: 'cursor@3',
      omitted: { spans: 2 },
    });
  });

  it('puts a kept span whose parent was left out at the top, marked as on another page', () => {
    const cut = cutTracePage(page(), size({ ...page(), spans: [] }) + 800, (kept) => `c${kept}`);
    expect(cut.spans.map((s) => [s.span_id, s.orphan, s.parent_on_other_page])).toEqual([
      ['root', false, undefined],
      ['early', false, true],
    ]);
    expect(cut.next_cursor).toBe('c2');
  });

  it('keeps one span even when alone over the budget, and no cursor when none can be made', () => {
    const cut = cutTracePage(page(), 10, () => undefined);
    expect(ids(cut.spans)).toEqual(['root']);
    expect(cut).toMatchObject({ has_more: true, truncated: true, omitted: { spans: 4 } });
    expect('next_cursor' in cut).toBe(false);
  });
});
