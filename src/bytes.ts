/** Small readers over `Uint8Array`, used by the header probes. Out-of-range reads return 0. */

export function u8(b: Uint8Array, o: number): number {
  return o < b.length ? b[o] : 0;
}
export function u16be(b: Uint8Array, o: number): number {
  return (u8(b, o) << 8) | u8(b, o + 1);
}
export function u16le(b: Uint8Array, o: number): number {
  return u8(b, o) | (u8(b, o + 1) << 8);
}
export function u24le(b: Uint8Array, o: number): number {
  return u8(b, o) | (u8(b, o + 1) << 8) | (u8(b, o + 2) << 16);
}
export function u32be(b: Uint8Array, o: number): number {
  return ((u8(b, o) << 24) | (u8(b, o + 1) << 16) | (u8(b, o + 2) << 8) | u8(b, o + 3)) >>> 0;
}
export function u32le(b: Uint8Array, o: number): number {
  return (u8(b, o) | (u8(b, o + 1) << 8) | (u8(b, o + 2) << 16) | (u8(b, o + 3) << 24)) >>> 0;
}
export function i32le(b: Uint8Array, o: number): number {
  return u32le(b, o) | 0;
}
/** The bytes at `o..o+len` as Latin-1 text. */
export function ascii(b: Uint8Array, o: number, len: number): string {
  let s = "";
  for (let i = o; i < o + len && i < b.length; i++) s += String.fromCharCode(b[i]);
  return s;
}
/** True when `b` holds `sig` at offset `o`. `sig` is a byte list or Latin-1 text. */
export function hasBytes(b: Uint8Array, o: number, sig: ArrayLike<number> | string): boolean {
  const n = sig.length;
  if (o + n > b.length) return false;
  for (let i = 0; i < n; i++) {
    const c = typeof sig === "string" ? sig.charCodeAt(i) : sig[i];
    if (b[o + i] !== c) return false;
  }
  return true;
}
