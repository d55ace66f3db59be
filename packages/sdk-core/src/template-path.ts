// Path segments that are ids rather than names of a route.
const ID_SEGMENT = [
  /^\d+$/,
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  /^[0-9a-f]{12,}$/i,
  // Prefixed ids such as usr_k3vkzzr97hszmn14puzv or ord-8f2k1m3n.
  /^[a-z]{2,8}[_-][a-z0-9]{8,}$/i,
];

/**
 * A path with its ids replaced by `:id` (`/v1/orders/123/items` -> `/v1/orders/:id/items`): the
 * operation of a request no router named, so that one endpoint is one operation, not one per id.
 */
export function templatePath(url: string): string {
  const path = url.split('?')[0]!.split('#')[0]!;
  return path
    .split('/')
    .map((segment) => (ID_SEGMENT.some((re) => re.test(segment)) ? ':id' : segment))
    .join('/');
}
