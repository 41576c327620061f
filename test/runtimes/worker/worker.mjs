/**
 * A Cloudflare Worker using pixfit: POST an image to /prepare and get the prepared image back
 * (content-type = its media type, `x-pixfit` header = the result's facts as JSON; typed errors → 422 JSON).
 * `?maxDecodePixels=N` overrides pixfit's Workers decode budget (`workerdMaxDecodePixels`). GET /checks runs the shared runtime checks inside workerd.
 * Bundled by wrangler with no configuration beyond wrangler.toml's name/main/compatibility_date
 * (no nodejs_compat): wrangler resolves pixfit's `#webp-wasm` import under its `workerd` condition and
 * ships the libwebp .wasm as a compiled module.
 */
import { prepare, isPixfitError } from "pixfit";
import * as px from "pixfit";
import { runChecks } from "../checks.js";

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/checks") return Response.json({ runtime: "workerd", results: await runChecks(px) });
    if (url.pathname === "/prepare" && request.method === "POST") {
      const bytes = new Uint8Array(await request.arrayBuffer());
      try {
        // pixfit's default decode budget in Workers turns an image too large for the isolate's 128 MB into a typed
        // error (422 below) instead of an aborted isolate; ?maxDecodePixels=N overrides it (for measurements).
        const budget = url.searchParams.get("maxDecodePixels");
        const r = await prepare(bytes, budget === null ? {} : { maxDecodePixels: Number(budget) });
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
