/** @jsxRuntime automatic @jsxImportSource preact */
import { NotFoundError } from '@svc/errors';
import express, { type Router } from 'express';
import { renderToString } from 'preact-render-to-string';
import type { ConsoleDeps } from '../console-deps';
import { type CatalogTool, catalogTools } from '../gateway-catalog';
import { PANEL_IDS, type PanelId, runPanel } from '../overview/panels';
import { pageContext } from '../page-context';
import { sendPage } from '../pages/layout';
import { OverviewPage, PanelPage } from '../pages/overview';
import { PanelBody } from '../pages/overview-panels';
import { sessionOf } from '../session';
import { answerOf } from '../tool-answers';

/** The overview (`/overview`, where sign-in lands) and each of its panels. */
export function overviewRoutes(deps: ConsoleDeps): Router {
  const router = express.Router();

  router.get('/overview', (req, res) => {
    sendPage(res, <OverviewPage ctx={pageContext(deps, req, res)} />);
  });

  /** Which capability each tool needs, to say so when one is refused; unknown while the gateway is down. */
  async function catalogByName(): Promise<Map<string, CatalogTool>> {
    const doc = await deps.tools.catalog().catch(() => undefined);
    return new Map(doc ? catalogTools(doc).map((tool) => [tool.name, tool]) : []);
  }

  // A panel: an HTML fragment for the overview's script (`fragment=1`), else a page of its own.
  // A tool's refusal or failure is the panel's content (200): the page around it stays.
  router.get('/overview/panels/:id', async (req, res) => {
    const ctx = pageContext(deps, req, res);
    const id = PANEL_IDS.find((known) => known === req.params.id) as PanelId | undefined;
    if (!id) throw new NotFoundError('No such panel.');
    const session = sessionOf(res).token;
    const [run, catalog] = await Promise.all([
      runPanel(id, (tool, input) => answerOf(deps.tools, { session, projectId: ctx.projectId, tool, input })),
      catalogByName(),
    ]);
    const body = <PanelBody ctx={ctx} run={run} catalog={catalog} />;
    if (req.query.fragment !== '1')
      return sendPage(
        res,
        <PanelPage ctx={ctx} id={id}>
          {body}
        </PanelPage>,
      );
    res.type('html').set('cache-control', 'no-store').send(renderToString(body));
  });

  return router;
}
