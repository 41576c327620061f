/** Shared shapes: rasters, header facts, codec entries. */

/** Media types pixfit reads. */
export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/bmp" | "image/webp";
export type MediaType = ImageMediaType | "application/pdf";

/**
 * A decoded image: 8-bit RGBA, straight (non-premultiplied) alpha, rows top to bottom,
 * stride = `width * 4` bytes, so `data.length === width * height * 4`.
 */
export interface Raster {
  /** Pixels. */
  width: number;
  /** Pixels. */
  height: number;
  /** RGBA bytes, `width * height * 4` long. */
  data: Uint8Array;
}

/** What a header says, read without decoding pixels. */
export interface ImageInfo {
  /** Pixels, as stored (before EXIF orientation). */
  width: number;
  /** Pixels, as stored (before EXIF orientation). */
  height: number;
  /** Whether the format/header allows transparency (an alpha channel, tRNS, a transparent GIF index). */
  hasAlpha: boolean;
  /** EXIF orientation 1–8 (TIFF 6.0 tag 0x0112); 1 when absent or not applicable. */
  orientation: number;
  /**
   * Set when the header shows a variant of the format that pixfit cannot decode (JPEG: arithmetic-coded, lossless,
   * hierarchical, JPEG-LS, not 8-bit): the reason, as a sentence. `prepare` refuses such files with
   * `UNSUPPORTED_FORMAT` even when they would fit, since browsers and model APIs cannot read them either.
   */
  unsupported?: string;
}

/** Options every decoder honours. */
export interface DecodeOptions {
  /** Refuse with `TOO_MANY_PIXELS` before allocating when width × height exceeds this. */
  maxPixels: number;
  /**
   * Pixels, in stored orientation (before EXIF rotation): the size the caller will resize the result down to. A
   * decoder MAY then return a smaller raster than the image (JPEG: a 1/2, 1/4 or 1/8-scale DCT decode, libjpeg's
   * `scale_denom`), never smaller than `targetWidth` × `targetHeight`. Both must be given for the hint to apply;
   * decoders without a cheaper reduced decode ignore it and return full size.
   */
  targetWidth?: number;
  /** Pixels; see `targetWidth`. */
  targetHeight?: number;
}

/** Options for encoders; each encoder ignores what does not apply to it. */
export interface EncodeOptions {
  /** JPEG quality 1–100. */
  quality?: number;
}

/**
 * One format in the codec registry (`codecs/index.ts`). Adding a format means adding one module
 * that exports a `Codec` and one row in that table.
 */
export interface Codec {
  /** Short lower-case name: "png", "jpeg", ... */
  readonly format: string;
  readonly mediaType: MediaType;
  /** "image" entries are probed, decoded and resized; "document" entries (PDF) pass through. */
  readonly kind: "image" | "document";
  /** True when `bytes` start with this format's signature. Reads at most the first 64 bytes. */
  sniff(bytes: Uint8Array): boolean;
  /** Header facts without decoding pixels. Throws `CORRUPT_IMAGE` when the header is unreadable. */
  probe?(bytes: Uint8Array): ImageInfo;
  /**
   * The raster size `decode` returns for a `targetWidth` × `targetHeight` hint (pixels, stored orientation), from the
   * header facts alone; absent → the full `info` size (no reduced decode). Lets callers budget memory before decoding.
   */
  decodedSize?(info: ImageInfo, targetWidth: number, targetHeight: number): { width: number; height: number };
  /** Full decode to RGBA. Throws `CORRUPT_IMAGE` or `TOO_MANY_PIXELS`. */
  decode?(bytes: Uint8Array, options: DecodeOptions): Promise<Raster>;
  /** Encode RGBA to this format's bytes. */
  encode?(raster: Raster, options: EncodeOptions): Promise<Uint8Array>;
}

/** A known format pixfit recognises only to name it in an error. */
export interface UnsupportedFormat {
  /** Display name used in messages: "HEIC", "TIFF", ... */
  readonly name: string;
  readonly mediaType: string;
  sniff(bytes: Uint8Array): boolean;
}
