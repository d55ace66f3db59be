/**
 * A backend's successful answer left as the bytes it came in. A caller that asks for it
 * (BackendCallOptions.unparsedFrom) has large answers parsed, checked against the tool's output
 * schema and serialized away from its event loop (the gateway's answer workers), so that one
 * tenant's megabyte answers do not hold up everybody's small ones.
 */
export class UnparsedAnswer {
  constructor(readonly bytes: Uint8Array) {}
}
