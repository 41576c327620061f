/**
 * `#webp-wasm`: the libwebp decoder for codecs/webp.ts. Under the `workerd` condition `wasmModule` is the precompiled
 * `WebAssembly.Module` (imported .wasm) and `wasmBase64` is empty; under `default`, `wasmModule` is undefined and
 * `wasmBase64` holds the .wasm as base64 (RFC 4648 §4), compiled on first use.
 */
export declare const wasmModule: WebAssembly.Module | undefined;
export declare const wasmBase64: string;
