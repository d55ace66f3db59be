// Mach-O files built byte by byte in the tests (no Apple toolchain on Linux): a header, a segment
// load command, LC_UUID, and some bytes standing in for the DWARF sections.

export interface ThinSpec {
  cputype: number;
  cpusubtype: number;
  /** 16 bytes, or null for a binary without LC_UUID. */
  uuid: Buffer | null;
  is64?: boolean;
  bigEndian?: boolean;
  payload?: string;
}

export const CPU = {
  arm64: [0x0100000c, 0],
  arm64e: [0x0100000c, 2],
  x86_64: [0x01000007, 3],
  armv7: [12, 9],
} as const satisfies Record<string, readonly [number, number]>;

export function thinMachO(spec: ThinSpec): Buffer {
  const is64 = spec.is64 ?? true;
  const headerSize = is64 ? 32 : 28;
  const segment = Buffer.alloc(is64 ? 72 : 56); // LC_SEGMENT(_64) with no sections
  const uuidCmd = spec.uuid ? Buffer.alloc(24) : Buffer.alloc(0);
  const payload = Buffer.from(spec.payload ?? 'DWARF stand-in', 'utf8');
  const out = Buffer.alloc(headerSize + segment.length + uuidCmd.length + payload.length);
  const w = (at: number, v: number) =>
    spec.bigEndian ? out.writeUInt32BE(v >>> 0, at) : out.writeUInt32LE(v >>> 0, at);
  w(0, is64 ? 0xfeedfacf : 0xfeedface);
  w(4, spec.cputype);
  w(8, spec.cpusubtype);
  w(12, 0xa); // MH_DSYM
  w(16, spec.uuid ? 2 : 1);
  w(20, segment.length + uuidCmd.length);
  w(headerSize, is64 ? 0x19 : 0x1);
  w(headerSize + 4, segment.length);
  if (spec.uuid) {
    const at = headerSize + segment.length;
    w(at, 0x1b);
    w(at + 4, 24);
    spec.uuid.copy(out, at + 8);
  }
  payload.copy(out, headerSize + segment.length + uuidCmd.length);
  return out;
}

/** A universal file: fat header, then each slice at a 4 KiB boundary. */
export function fatMachO(slices: { cputype: number; cpusubtype: number; bytes: Buffer }[]): Buffer {
  const align = 4096;
  const header = Buffer.alloc(8 + slices.length * 20);
  header.writeUInt32BE(0xcafebabe, 0);
  header.writeUInt32BE(slices.length, 4);
  const parts: Buffer[] = [header];
  let offset = header.length;
  slices.forEach((slice, i) => {
    const start = Math.ceil(offset / align) * align;
    parts.push(Buffer.alloc(start - offset), slice.bytes);
    const at = 8 + i * 20;
    header.writeUInt32BE(slice.cputype >>> 0, at);
    header.writeUInt32BE(slice.cpusubtype >>> 0, at + 4);
    header.writeUInt32BE(start, at + 8);
    header.writeUInt32BE(slice.bytes.length, at + 12);
    header.writeUInt32BE(12, at + 16);
    offset = start + slice.bytes.length;
  });
  return Buffer.concat(parts);
}

/** 8-4-4-4-12, upper case: how the CLI and Apple's tools print a UUID. */
export function uuidText(uuid: Buffer): string {
  const h = uuid.toString('hex').toUpperCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
