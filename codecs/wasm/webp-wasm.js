/**
 * `#webp-wasm`, default condition (Node, Bun, Deno, browsers, bundlers without a `workerd` condition).
 * No precompiled module: codecs/webp.ts compiles its embedded base64 copy of the decoder once, on the
 * first WEBP decode, with `WebAssembly.compile`. Plain JavaScript (no TypeScript build step) so the same
 * file serves the source tree and the built package; see package.json "imports".
 */
export default undefined;
