/**
 * Hand-built PNG files for tests and fixture generators (PNG §5.2 signature, §5.3 chunk layout, §5.5 CRC).
 * The CRC is computed here, independently of codecs/png.ts, so crafted files do not depend on the code under test.
 */

/** CRC-32 (ISO 3309 / ITU-T V.42 polynomial, as PNG §5.5 specifies) of `b`. */
export function crc32(b: ArrayLike<number>): number {
  let c = -1;
  for (let i = 0; i < b.length; i++) {
    c ^= b[i];
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ -1) >>> 0;
}

/** One chunk: length, type, data, CRC of type + data. */
export function pngChunk(type: string, data: ArrayLike<number>): Uint8Array {
  const c = new Uint8Array(12 + data.length);
  const v = new DataView(c.buffer);
  v.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) c[4 + i] = type.charCodeAt(i);
  c.set(data, 8);
  v.setUint32(8 + data.length, crc32(c.subarray(4, 8 + data.length)));
  return c;
}

/** The PNG signature followed by `chunks`. */
export function pngFile(...chunks: Uint8Array[]): Uint8Array {
  const parts = [new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ...chunks];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) (out.set(p, o), (o += p.length));
  return out;
}

/** An IHDR chunk (compression, filter and interlace methods 0). */
export function pngIhdr(width: number, height: number, depth: number, colourType: number): Uint8Array {
  const d = new Uint8Array(13);
  const v = new DataView(d.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  d[8] = depth;
  d[9] = colourType;
  return pngChunk("IHDR", d);
}

/** The IEND chunk. */
export const pngIend = pngChunk("IEND", new Uint8Array(0));
