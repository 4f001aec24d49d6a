const GZIP_THRESHOLD = 1024

/**
 * A serialised JSON body with its ETag and (made on first demand) its gzip form, so an
 * answer cached per data version is serialised, hashed and compressed once. The body is a
 * Blob of the UTF-8 bytes, which every Response made from it shares: a string with any
 * non-Latin-1 character (an accent in a club name) would be re-encoded for every answer.
 */
export class Prepared {
  readonly etag: string
  readonly body: Blob
  #gzip: Promise<Blob> | null = null

  private constructor(json: string) {
    // The Blob encodes the text to UTF-8 itself: no intermediate copy of a big answer.
    this.body = new Blob([json], { type: 'application/json' })
    this.etag = `W/"${Bun.hash(json).toString(36)}"`
  }

  static of(value: unknown): Prepared {
    return new Prepared(JSON.stringify(value))
  }

  static fromJson(json: string): Prepared {
    return new Prepared(json)
  }

  get compressible(): boolean {
    return this.body.size > GZIP_THRESHOLD
  }

  text(): Promise<string> {
    return this.body.text()
  }

  gzip(): Promise<Blob> {
    this.#gzip ??= this.body.bytes().then((bytes) => new Blob([Bun.gzipSync(bytes)], { type: 'application/json' }))
    return this.#gzip
  }
}
