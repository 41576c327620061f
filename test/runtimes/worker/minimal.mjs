/**
 * The Worker shown in the README, line for line: POST an image, get the prepared image back; an image over the
 * Workers decode budget (pixfit's default there, `workerdMaxDecodePixels`) gets a typed error (422) instead of
 * aborting the isolate. scripts/test-runtimes.mjs
 * bundles it with wrangler (wrangler.minimal.toml) and POSTs to it; scripts/runtimes/measure-size.mjs
 * reports its size.
 */
import { prepare, isPixfitError } from "pixfit";

export default {
  async fetch(request) {
    try {
      const r = await prepare(new Uint8Array(await request.arrayBuffer()));
      return new Response(r.bytes, { headers: { "content-type": r.mediaType } });
    } catch (err) {
      if (isPixfitError(err)) return Response.json({ error: err.code, message: err.message }, { status: 422 });
      throw err;
    }
  },
};
