// Which Go toolchains this machine has, for the Go SDK's checks, its end-to-end chain and its
// benchmark. The SDK's floor is Go 1.19 (Debian bookworm's golang-go, which CI installs); where
// a newer Go is installed as well (Debian's golang-1.2x-go under /usr/lib/go-1.2x), the code built
// only by newer releases (the slog handler, ServeMux patterns) is tested with it too.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

/** `go version`'s minor number (19 for go1.19.8), or undefined when `go` cannot run. */
function minorOf(go) {
  try {
    const out = execFileSync(go, ['version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const match = /go1\.(\d+)/.exec(out);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Go to build with: $GO, else `go` on the PATH, if it is 1.19 or later. Without one, CI (CI
 * set) fails naming the fix; elsewhere the answer is undefined and the caller skips, saying so.
 */
export function findGo() {
  for (const go of [process.env.GO, 'go'].filter(Boolean)) {
    const minor = minorOf(go);
    if (minor !== undefined && minor >= 19) return { go, minor };
  }
  if (process.env.CI)
    throw new Error('CI needs Go 1.19 or later for the Go SDK: apt-get install golang-go, or set GO');
  return undefined;
}

/** findGo's toolchain, and the newest other one installed under /usr/lib, if any. */
export function goToolchains() {
  const main = findGo();
  if (!main) return [];
  const others = existsSync('/usr/lib')
    ? readdirSync('/usr/lib')
        .filter((name) => /^go-1\.\d+$/.test(name))
        .map((name) => `/usr/lib/${name}/bin/go`)
        .filter((go) => existsSync(go))
        .map((go) => ({ go, minor: minorOf(go) }))
        .filter((t) => t.minor !== undefined && t.minor !== main.minor)
        .sort((a, b) => b.minor - a.minor)
    : [];
  return others.length > 0 && others[0].minor > main.minor ? [main, others[0]] : [main];
}
