import { UserInputError } from '@svc/errors';
import type { Queryable } from '@svc/postgres';
import { requestForUpload } from '../store/requests';

/**
 * What an upload naming `request_id` does to that recall request (docs/recall.md, "Device side").
 * The request must be one of the project's and ask for this device, or for the user the upload
 * names; else the upload is refused (400), so no device answers another's recall. A pending one is
 * answered by this upload; one answered already (by an earlier day's file of the same round) only
 * has the file listed with it. Runs in the upload's transaction: the row stays locked until the
 * file is stored, so two uploads cannot both answer it.
 */
export async function answerRequest(
  tx: Queryable,
  projectId: string,
  requestId: string,
  upload: { device_id: string; user_id?: string | undefined },
): Promise<{ fulfils: boolean }> {
  const request = await requestForUpload(tx, projectId, requestId);
  const forThisDevice =
    request !== undefined &&
    (request.device_id === upload.device_id ||
      (request.user_id !== null && upload.user_id !== undefined && request.user_id === upload.user_id));
  if (!request || !forThisDevice) {
    throw new UserInputError(
      'request_id: not a recall request of this project for this device (or its user); ask GET /device/v1/recalls.',
    );
  }
  return { fulfils: request.fulfilled_at === null };
}
