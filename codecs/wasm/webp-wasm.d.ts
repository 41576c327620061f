/**
 * `#webp-wasm`: the libwebp decoder as a precompiled `WebAssembly.Module` where the runtime needs one
 * (the `workerd` condition), else `undefined` (codecs/webp.ts then compiles its embedded base64 copy).
 */
declare const webpDecWasm: WebAssembly.Module | undefined;
export default webpDecWasm;
