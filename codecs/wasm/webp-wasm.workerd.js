/**
 * `#webp-wasm`, `workerd` condition (Cloudflare Workers: wrangler, miniflare, esbuild with
 * `conditions: ["workerd"]`). workerd refuses `WebAssembly.compile` on bytes ("Wasm code generation
 * disallowed by embedder"), so the libwebp decoder arrives as a module import; wrangler's default rule
 * turns `*.wasm` imports into a compiled `WebAssembly.Module`. Plain JavaScript; see package.json "imports".
 */
import webpDecWasm from "@jsquash/webp/codec/dec/webp_dec.wasm";

export const wasmModule = webpDecWasm;
/** No base64 copy here: the module above is all workerd needs. */
export const wasmBase64 = "";
