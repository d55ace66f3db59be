import type { PageContext } from '../pages/layout';

/** The page context a rendered page gets in tests: one signed-in person, one project. */
export const TEST_PAGE_CONTEXT: PageContext = {
  me: {
    user_id: 'usr_1',
    email: 'dev@example.com',
    org_id: 'org_1',
    org_name: 'Example',
    projects: [{ project_id: 'prj_1', name: 'Shop' }],
    step_up_until: null,
  },
  csrf: 'csrf-token',
  projectId: 'prj_1',
  gatewayUrl: 'https://mcp.example.com',
};
