const GZIP_THRESHOLD = 1024

/**
 * A serialised JSON body with its ETag and (made on first demand) its gzip form, so an
 * answer cached per data version is serialised, hashed and compressed once.
 */
export class Prepared {
  readonly etag: string
  #gzip: Uint8Array<ArrayBuffer> | null = null

  constructor(readonly json: string) {
    this.etag = `W/"${Bun.hash(json).toString(36)}"`
  }

  static of(value: unknown): Prepared {
    return new Prepared(JSON.stringify(value))
  }

  get compressible(): boolean {
    return this.json.length > GZIP_THRESHOLD
  }

  gzip(): Uint8Array<ArrayBuffer> {
    return (this.#gzip ??= Bun.gzipSync(Buffer.from(this.json)))
  }
}
