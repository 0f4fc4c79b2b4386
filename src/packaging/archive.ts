import { crc32 } from "node:zlib";

/**
 * Release archives and npm tarballs, written here rather than with `tar`/`zip` so that the files
 * are the same on every build machine (Windows has no `zip`), entries carry the executable bit,
 * and timestamps are fixed; Bun.Archive can set neither modes nor times.
 */
export interface ArchiveEntry {
  /** Path inside the archive, with `/`. */
  name: string;
  data: Uint8Array<ArrayBuffer>;
  /** Unix permission bits: 0o755 for executables, 0o644 otherwise. */
  mode: number;
}

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
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  const { time, date } = dosDateTime(mtime);
  for (const entry of entries) {
    const name = encoder.encode(entry.name);
    const compressed = Bun.deflateSync(entry.data, { level: level as 1 });
    const crc = crc32(entry.data) >>> 0;
    // The local header and the central record share these fields, two bytes apart.
    const shared = (view: DataView, at: number) => {
      view.setUint16(at, 20, true); // version needed: 2.0 (deflate)
      view.setUint16(at + 2, 0x0800, true); // UTF-8 names
      view.setUint16(at + 4, 8, true); // deflate
      view.setUint16(at + 6, time, true);
      view.setUint16(at + 8, date, true);
      view.setUint32(at + 10, crc, true);
      view.setUint32(at + 14, compressed.length, true);
      view.setUint32(at + 18, entry.data.length, true);
      view.setUint16(at + 22, name.length, true);
    };
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    shared(local, 4);
    const record = new DataView(new ArrayBuffer(46));
    record.setUint32(0, 0x02014b50, true);
    record.setUint16(4, (3 << 8) | 20, true); // made by: Unix, 2.0
    shared(record, 6);
    record.setUint32(38, ((0o100000 | entry.mode) << 16) >>> 0, true); // regular file + mode
    record.setUint32(42, offset, true);
    parts.push(new Uint8Array(local.buffer), name, compressed);
    central.push(new Uint8Array(record.buffer), name);
    offset += 30 + name.length + compressed.length;
  }
  const directory = Buffer.concat(central);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, entries.length, true);
  end.setUint16(10, entries.length, true);
  end.setUint32(12, directory.length, true);
  end.setUint32(16, offset, true);
  return Buffer.concat([...parts, directory, new Uint8Array(end.buffer)]);
}

function dosDateTime(when: Date): { time: number; date: number } {
  // DOS dates start in 1980; earlier times (a SOURCE_DATE_EPOCH of 0) are clamped.
  const d = when.getUTCFullYear() < 1980 ? new Date(Date.UTC(1980, 0, 1)) : when;
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | Math.floor(d.getUTCSeconds() / 2),
    date: ((d.getUTCFullYear() - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}
