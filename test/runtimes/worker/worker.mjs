/**
 * A Cloudflare Worker using pixfit: POST an image to /prepare and get the prepared image back
 * (content-type = its media type, `x-pixfit` header = the result's facts as JSON; typed errors → 422 JSON).
 * `?maxInputPixels=N` overrides the pixel budget. GET /checks runs the shared runtime checks inside workerd.
 * Bundled by wrangler with no configuration beyond wrangler.toml's name/main/compatibility_date
 * (no nodejs_compat): wrangler resolves pixfit's `#webp-wasm` import under its `workerd` condition and
 * ships the libwebp .wasm as a compiled module.
 */
import { prepare, isPixfitError } from "pixfit";
import * as px from "pixfit";
import { runChecks } from "../checks.js";

/**
 * Pixels (width × height from the header) this Worker accepts: 2.5 million. Measured in workerd, the JPEG path
 * costs up to about 40 bytes per input pixel at its peak, so 2.5 MP stays under Cloudflare's 128 MB per isolate
 * with room for the code and the WEBP decoder's memory (docs/runtimes.md, "workerd memory").
 */
const WORKER_MAX_PIXELS = 2_500_000;

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/checks") return Response.json({ runtime: "workerd", results: await runChecks(px) });
    if (url.pathname === "/prepare" && request.method === "POST") {
      const bytes = new Uint8Array(await request.arrayBuffer());
      try {
        // A pixel budget turns an image too large for the isolate's 128 MB into a typed error (422 below)
        // instead of an aborted isolate; see docs/runtimes.md for the measurement behind the number.
        const maxInputPixels = Number(url.searchParams.get("maxInputPixels") ?? WORKER_MAX_PIXELS);
        const r = await prepare(bytes, { maxInputPixels });
        const facts = { mediaType: r.mediaType, width: r.width, height: r.height, resized: r.resized, transcoded: r.transcoded, original: r.original };
        return new Response(r.bytes, { headers: { "content-type": r.mediaType, "x-pixfit": JSON.stringify(facts) } });
      } catch (err) {
        if (isPixfitError(err)) return Response.json({ error: err.code, message: err.message }, { status: 422 });
        throw err;
      }
    }
    return new Response("POST an image to /prepare, or GET /checks\n", { status: 404 });
  },
};
