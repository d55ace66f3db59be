export interface GoToolchain {
  /** The `go` command to run. */
  go: string;
  /** Its minor version: 19 for go1.19.8. */
  minor: number;
}

/** $GO or `go` on the PATH (1.19 or later); undefined without one (an error in CI). */
export function findGo(): GoToolchain | undefined;

/** findGo's toolchain, and the newest other one installed under /usr/lib, if any. */
export function goToolchains(): GoToolchain[];
