/** @jsxRuntime automatic @jsxImportSource preact */
import type { ComponentChildren } from 'preact';
import { OVERVIEW_DAYS, PANEL_IDS, type PanelId } from '../overview/panels';
import { href, Layout, type PageContext } from './layout';
import { PANEL_TITLES } from './overview-panels';

// The overview (where sign-in lands): one panel per question, each filled on its own
// (/static/overview.js fetches /overview/panels/<id>), so a slow or failing tool holds up or
// blanks its panel only. Without JavaScript each panel links to a page of its own.

export const panelPath = (id: PanelId) => `/overview/panels/${id}`;

function PanelShell({ id, children }: { id: PanelId; children: ComponentChildren }) {
  return (
    <section class="overview-panel" id={`panel-${id}`} aria-labelledby={`panel-${id}-heading`}>
      <h2 id={`panel-${id}-heading`}>{PANEL_TITLES[id]}</h2>
      {children}
    </section>
  );
}

export function OverviewPage({ ctx }: { ctx: PageContext }) {
  return (
    <Layout ctx={ctx} section="overview" title="Overview" views>
      <script src="/static/overview.js" defer />
      <p class="muted">
        The last {OVERVIEW_DAYS} days of this project, from the same tools MCP clients call: each panel is a
        tool call through the gateway as you, audited like any other.
      </p>
      {PANEL_IDS.map((id) => (
        <PanelShell key={id} id={id}>
          <div
            data-panel-body=""
            data-panel-src={href(panelPath(id), ctx.projectId, { fragment: '1' })}
            aria-busy="true"
          >
            <p role="status" class="muted" data-panel-state="loading">
              Loading…{' '}
              <noscript>
                <a href={href(panelPath(id), ctx.projectId)}>Show this panel</a>
              </noscript>
            </p>
          </div>
        </PanelShell>
      ))}
    </Layout>
  );
}

/** One panel as a page of its own (without JavaScript). */
export function PanelPage({
  ctx,
  id,
  children,
}: {
  ctx: PageContext;
  id: PanelId;
  children: ComponentChildren;
}) {
  return (
    <Layout ctx={ctx} section="overview" title={PANEL_TITLES[id]} views>
      <p>
        <a href={href('/overview', ctx.projectId)}>Overview</a>
      </p>
      <PanelShell id={id}>{children}</PanelShell>
    </Layout>
  );
}
