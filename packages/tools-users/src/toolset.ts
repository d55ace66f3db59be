import type { AnyTool } from '@svc/tool-kit';
import { sessionDetail } from './session-detail';
import { userDetail } from './user-detail';

/** Tools of this group, in catalog order. Each lives in its own file. */
export const usersTools: readonly AnyTool[] = [userDetail, sessionDetail];
