/**
 * Base64 (RFC 4648 §4, standard alphabet, with `=` padding, no line breaks) without `Buffer`, so it runs
 * unchanged in Node, Bun, Deno, workerd and browsers.
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const ENC = new Uint8Array(64);
for (let i = 0; i < 64; i++) ENC[i] = ALPHABET.charCodeAt(i);
const DEC = new Int16Array(256).fill(-1);
for (let i = 0; i < 64; i++) DEC[ALPHABET.charCodeAt(i)] = i;

/** Characters of base64 for `byteLength` bytes: `4 * ceil(byteLength / 3)`. */
export function base64Length(byteLength: number): number {
  return 4 * Math.ceil(byteLength / 3);
}

/**
 * Writes the base64 ASCII of `bytes` into `out` at `offset` and returns the number of characters written
 * (`base64Length(bytes.length)`). Padding is written only when `bytes.length` is not a multiple of 3, so a
 * stream split into chunks of a multiple of 3 bytes encodes to the same text as the whole.
 */
export function encodeBase64Into(bytes: Uint8Array, out: Uint8Array, offset = 0): number {
  const n = bytes.length;
  const full = n - (n % 3);
  let o = offset;
  for (let i = 0; i < full; i += 3) {
    const v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out[o++] = ENC[v >> 18];
    out[o++] = ENC[(v >> 12) & 63];
    out[o++] = ENC[(v >> 6) & 63];
    out[o++] = ENC[v & 63];
  }
  if (n - full === 1) {
    const v = bytes[full] << 16;
    out[o++] = ENC[v >> 18];
    out[o++] = ENC[(v >> 12) & 63];
    out[o++] = 61;
    out[o++] = 61;
  } else if (n - full === 2) {
    const v = (bytes[full] << 16) | (bytes[full + 1] << 8);
    out[o++] = ENC[v >> 18];
    out[o++] = ENC[(v >> 12) & 63];
    out[o++] = ENC[(v >> 6) & 63];
    out[o++] = 61;
  }
  return o - offset;
}

const latin1 = new TextDecoder("latin1");

/** `bytes` as a base64 string (RFC 4648 §4, padded). Never throws. */
export function encodeBase64(bytes: Uint8Array): string {
  // Encode in slices so the temporary ASCII buffer stays small; the string pieces join as a rope.
  const SLICE = 3 * 256 * 1024;
  if (bytes.length <= SLICE) {
    const out = new Uint8Array(base64Length(bytes.length));
    encodeBase64Into(bytes, out);
    return latin1.decode(out);
  }
  let s = "";
  const out = new Uint8Array(base64Length(SLICE));
  for (let i = 0; i < bytes.length; i += SLICE) {
    const chunk = bytes.subarray(i, Math.min(i + SLICE, bytes.length));
    const len = encodeBase64Into(chunk, out);
    s += latin1.decode(out.subarray(0, len));
  }
  return s;
}

/**
 * Decodes base64 (standard or URL-safe alphabet; padding optional; ASCII whitespace ignored).
 * @throws TypeError when a character outside the alphabet appears or the length is impossible (4k + 1).
 */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(Math.floor((text.length * 3) / 4) + 3);
  let o = 0;
  let acc = 0;
  let bits = 0;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c === 61) break; // '='
    if (c === 32 || c === 9 || c === 10 || c === 13) continue;
    if (c === 45) c = 43; // '-' → '+'
    else if (c === 95) c = 47; // '_' → '/'
    const v = c < 256 ? DEC[c] : -1;
    if (v < 0) throw new TypeError(`Invalid base64 character at index ${i}.`);
    acc = (acc << 6) | v;
    bits += 6;
    count++;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  if (count % 4 === 1) throw new TypeError("Invalid base64 length.");
  return out.slice(0, o);
}

/** Bytes that `text` (base64) decodes to, computed from its length without decoding. */
export function base64DecodedLength(text: string): number {
  let n = text.length;
  while (n > 0 && text.charCodeAt(n - 1) === 61) n--;
  return Math.floor((n * 3) / 4);
}
