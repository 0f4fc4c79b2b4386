import { zipSync } from "fflate";

/**
 * Written here rather than with `tar`/`zip` so that files are the same on every build machine, with
 * the executable bit and fixed times; Bun.Archive can set neither modes nor times.
 */
export type ArchiveEntry = { name: string; data: Uint8Array<ArrayBuffer>; mode: number };

const encoder = new TextEncoder();

/** An entry, mode 0o644 unless given; text is stored as UTF-8. */
export function entry(name: string, data: string | Uint8Array<ArrayBuffer>, mode = 0o644): ArchiveEntry {
  return { name, data: typeof data === "string" ? encoder.encode(data) : data, mode };
}

/** A POSIX ustar archive, gzip-compressed. */
export function tarGz(entries: readonly ArchiveEntry[], mtime: Date, level = 9): Uint8Array<ArrayBuffer> {
  const blocks: Uint8Array[] = [];
  for (const entry of entries) {
    blocks.push(tarHeader(entry, mtime), entry.data);
    const padding = (512 - (entry.data.length % 512)) % 512;
    if (padding > 0) blocks.push(new Uint8Array(padding));
  }
  blocks.push(new Uint8Array(1024));
  return Bun.gzipSync(Buffer.concat(blocks), { level: level as 1 });
}

function tarHeader(entry: ArchiveEntry, mtime: Date): Uint8Array {
  const header = new Uint8Array(512);
  const name = encoder.encode(entry.name);
  if (name.length <= 100) header.set(name, 0);
  else {
    // ustar splits long names at a `/` into prefix (155) and name (100).
    const cut = entry.name.lastIndexOf("/");
    const prefix = encoder.encode(entry.name.slice(0, cut));
    const base = encoder.encode(entry.name.slice(cut + 1));
    if (cut <= 0 || prefix.length > 155 || base.length > 100) throw new Error(`path too long for tar: ${entry.name}`);
    header.set(base, 0);
    header.set(prefix, 345);
  }
  writeOctal(header, 100, 8, entry.mode);
  writeOctal(header, 108, 8, 0);
  writeOctal(header, 116, 8, 0);
  writeOctal(header, 124, 12, entry.data.length);
  writeOctal(header, 136, 12, Math.floor(mtime.getTime() / 1000));
  header.fill(0x20, 148, 156);
  header[156] = 0x30; // regular file
  header.set(encoder.encode("ustar\u000000"), 257);
  header.set(encoder.encode("root"), 265);
  header.set(encoder.encode("root"), 297);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.set(encoder.encode(`${sum.toString(8).padStart(6, "0")}\u0000 `), 148);
  return header;
}

function writeOctal(header: Uint8Array, offset: number, length: number, value: number): void {
  header.set(encoder.encode(`${value.toString(8).padStart(length - 1, "0")}\u0000`), offset);
}

/** A zip archive (deflate), with Unix modes recorded so that unzip on macOS/Linux keeps `+x`. */
export function zip(entries: readonly ArchiveEntry[], mtime: Date, level = 9): Uint8Array<ArrayBuffer> {
  // DOS dates start in 1980; earlier times (a SOURCE_DATE_EPOCH of 0) are clamped.
  const when = mtime.getUTCFullYear() < 1980 ? new Date(Date.UTC(1980, 0, 1)) : mtime;
  const files = entries.map((e) => [e.name, [e.data, { os: 3, attrs: (0o100000 | e.mode) << 16, mtime: when }]]);
  return zipSync(Object.fromEntries(files), { level: level as 9 }) as Uint8Array<ArrayBuffer>;
}
