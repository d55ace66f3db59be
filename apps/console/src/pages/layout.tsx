/** @jsxRuntime automatic @jsxImportSource preact */
import type { Response } from 'express';
import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { Me } from '../identity-api';
import { CSRF_FIELD } from '../session';

// Pages are Preact components rendered to HTML on the server: JSX escapes every value it prints,
// so data from tools (log lines, span attributes, tool input) cannot become markup. Pico CSS
// styles semantic HTML as it is (no classes to learn), with accessible defaults: visible focus,
// labelled form controls, contrast; the few styles of our own are in /static/console.css.

/** Where a page's links point for the current project. */
export interface PageContext {
  me: Me;
  csrf: string;
  projectId: string;
  /** The gateway as clients reach it (no trailing slash). */
  gatewayUrl: string;
}

export type Section = 'overview' | 'mcp' | 'traces' | 'recall' | 'audit' | 'tools' | 'assistant';

const SECTIONS: [Section, string, string][] = [
  ['overview', '/overview', 'Overview'],
  ['mcp', '/mcp', 'MCP tokens'],
  ['traces', '/traces', 'Traces'],
  ['recall', '/recall', 'Recall'],
  ['audit', '/audit', 'Audit'],
  ['tools', '/tools', 'Tool runner'],
  ['assistant', '/assistant', 'Assistant'],
];

/** A console URL for the current project, with extra query parameters. */
export function href(
  path: string,
  projectId: string,
  query: Record<string, string | undefined> = {},
): string {
  const params = new URLSearchParams({ project: projectId });
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, v);
  return `${path}?${params}`;
}

export function CsrfField({ csrf }: { csrf: string }) {
  return <input type="hidden" name={CSRF_FIELD} value={csrf} />;
}

function Shell({ title, views, children }: { title: string; views?: boolean; children: ComponentChildren }) {
  return (
    <html lang="en" data-theme="light">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Observability console`}</title>
        <link rel="icon" href="/static/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/static/pico.min.css" />
        <link rel="stylesheet" href="/static/console.css" />
        <script src="/static/console.js" defer />
        {/* The MCP Apps host (about 600 KB, cached): only on pages that draw tool answers. */}
        {views ? <script src="/static/view-host.js" defer /> : null}
      </head>
      {children}
    </html>
  );
}

/** A signed-in page: navigation, project picker, sign-out, then the page's content. */
export function Layout({
  ctx,
  section,
  title,
  views,
  children,
}: {
  ctx: PageContext;
  section: Section;
  title: string;
  /** The page shows tool answers drawn by their views (pages/tool-answer.tsx): load the host script. */
  views?: boolean;
  children: ComponentChildren;
}) {
  const project = ctx.me.projects.find((p) => p.project_id === ctx.projectId);
  return (
    <Shell title={title} views={views}>
      <body>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="container">
          <nav aria-label="Console">
            <ul>
              <li>
                <strong>Observability console</strong>
              </li>
            </ul>
            <ul>
              {SECTIONS.map(([key, path, label]) => (
                <li key={key}>
                  <a href={href(path, ctx.projectId)} aria-current={key === section ? 'page' : undefined}>
                    {label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <div class="console-bar">
            <form method="get" action={SECTIONS.find(([key]) => key === section)?.[1]} class="project-picker">
              <label for="project-picker">Project</label>
              <select id="project-picker" name="project">
                {ctx.me.projects.map((p) => (
                  <option key={p.project_id} value={p.project_id} selected={p.project_id === ctx.projectId}>
                    {`${p.name} (${p.project_id})`}
                  </option>
                ))}
              </select>
              <button type="submit" class="secondary">
                Open
              </button>
            </form>
            <form method="post" action="/logout" class="sign-out">
              <CsrfField csrf={ctx.csrf} />
              <span>{ctx.me.email ?? ctx.me.user_id}</span>
              {ctx.me.org_name ? <span class="muted"> · {ctx.me.org_name}</span> : null}
              <button type="submit" class="outline">
                Sign out
              </button>
            </form>
          </div>
        </header>
        <main id="main" class="container">
          <h1>
            {title}
            {project ? <small class="muted"> · {project.name}</small> : null}
          </h1>
          {children}
        </main>
      </body>
    </Shell>
  );
}

/** A page without navigation (sign-in, errors before a session). */
export function Bare({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <Shell title={title}>
      <body>
        <main id="main" class="container narrow">
          <h1>{title}</h1>
          {children}
        </main>
      </body>
    </Shell>
  );
}

/** Sends a page. Pages hold what a session may see (and once a token): never cached. */
export function sendPage(res: Response, page: VNode, status = 200): void {
  res
    .status(status)
    .type('html')
    .set('cache-control', 'no-store')
    .send(`<!doctype html>${renderToString(page)}`);
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d{3}Z$/, ' UTC');
}
