import { createHash } from 'node:crypto';
import { buildAllViews } from './build-views';
import { VIEW_HTML } from './generated/view-html';
import { listViewResources, readViewResource, toolViewMetas } from './resources';
import { VIEW_MIME_TYPE, VIEW_NAMES, VIEW_SIZE_BUDGET_BYTES, VIEWS, viewUri } from './views';

// What a server lists and reads: one ui:// resource per view, self-contained, within its size
// budget, with a CSP that lets nothing but its own inline script and style run.

const cspOf = (html: string) =>
  /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

describe('view resources', () => {
  it('the generated HTML is what the sources build today (run `pnpm --filter @svc/mcp-views views`)', async () => {
    expect(await buildAllViews()).toEqual(VIEW_HTML);
  });

  it('lists one ui:// resource per view with the extension MIME type, readable by its URI', () => {
    const resources = listViewResources();
    expect(resources.map((r) => r.name)).toEqual([...VIEW_NAMES]);
    for (const resource of resources) {
      expect(resource.uri).toMatch(/^ui:\/\//);
      expect(resource.mimeType).toBe(VIEW_MIME_TYPE);
      expect(readViewResource(resource.uri)).toEqual(resource);
    }
    expect(readViewResource('ui://observability/nothing.html')).toBeUndefined();
  });

  it.each(VIEW_NAMES)('%s stays within the size budget', (name) => {
    expect(Buffer.byteLength(VIEW_HTML[name], 'utf8')).toBeLessThanOrEqual(VIEW_SIZE_BUDGET_BYTES);
  });

  it.each(VIEW_NAMES)(
    '%s loads nothing from outside and runs only its own inline script and style',
    (name) => {
      const html = VIEW_HTML[name];
      const csp = cspOf(html);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("connect-src 'none'");
      const script = /<script>([\s\S]*)<\/script>/.exec(html)?.[1] ?? '';
      const style = /<style>([\s\S]*)<\/style>/.exec(html)?.[1] ?? '';
      expect(csp).toContain(`script-src ${hashOf(script)}`);
      expect(csp).toContain(`style-src ${hashOf(style)}`);
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
      expect(html).not.toMatch(/<script[^>]+src=|<link|@import|url\(/i);
      const resource = readViewResource(viewUri(name))!;
      expect(resource._meta.ui.csp).toEqual({
        connectDomains: [],
        resourceDomains: [],
        frameDomains: [],
        baseUriDomains: [],
      });
    },
  );

  it('gives _meta.ui.resourceUri to exactly the tools a view draws', () => {
    const metas = toolViewMetas();
    const expected = VIEWS.flatMap((view) => view.tools.map((tool) => [tool, viewUri(view.name)] as const));
    expect(Object.keys(metas).sort()).toEqual(expected.map(([tool]) => tool).sort());
    for (const [tool, uri] of expected) expect(metas[tool]).toEqual({ ui: { resourceUri: uri } });
    const uris = new Set(listViewResources().map((r) => r.uri));
    for (const meta of Object.values(metas)) expect(uris.has(meta.ui.resourceUri)).toBe(true);
  });
});
