import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { TEST_PAGE_CONTEXT } from '../testing/page-context';
import { MorePager } from './more-pager';

// The pager of the recall files and audit pages: the same query with twice the limit, up to the
// tools' largest limit, then only advice.

const ctx = TEST_PAGE_CONTEXT;
const render = (list: { limit: number; has_more: boolean } | undefined) =>
  renderToString(
    h(MorePager, { ctx, path: '/recall', filters: { name: 'a b', limit: '20' }, list, noun: 'files' }),
  );

test('nothing when every match is shown or the call failed', () => {
  expect(render({ limit: 20, has_more: false })).toBe('');
  expect(render(undefined)).toBe('');
});

test('more match: a link to the same filters with twice the limit, at most 1000', () => {
  const html = render({ limit: 20, has_more: true });
  expect(html).toContain('More files match than are shown. <a');
  expect(html).toContain(`href="/recall?project=${ctx.projectId}&amp;name=a+b&amp;limit=40"`);
  expect(html).toContain('Show up to 40');
  expect(render({ limit: 700, has_more: true })).toContain('Show up to 1000');
});

test('at the largest limit only narrower filters help', () => {
  const html = render({ limit: 1000, has_more: true });
  expect(html).not.toContain('<a');
  expect(html).toBe('<p class="pager">More files match than are shown. Narrow the filters to see them.</p>');
});
