const GZIP_THRESHOLD = 1024

/**
 * A serialised JSON body with its ETag and (made on first demand) its gzip form, so an
 * answer cached per data version is serialised, hashed and compressed once. Responses are
 * made from a Blob of the UTF-8 bytes, which they share: a string with any non-Latin-1
 * character (an accent in a club name) would be re-encoded for every single answer.
 */
export class Prepared {
  readonly etag: string
  readonly #bytes: Uint8Array<ArrayBuffer>
  readonly #body: Blob
  #gzip: Blob | null = null

  private constructor(bytes: Uint8Array<ArrayBuffer>) {
    this.#bytes = bytes
    this.#body = new Blob([bytes], { type: 'application/json' })
    this.etag = `W/"${Bun.hash(bytes).toString(36)}"`
  }

  static of(value: unknown): Prepared {
    return Prepared.fromJson(JSON.stringify(value))
  }

  static fromJson(json: string): Prepared {
    return new Prepared(new TextEncoder().encode(json))
  }

  get body(): Blob {
    return this.#body
  }

  get compressible(): boolean {
    return this.#bytes.byteLength > GZIP_THRESHOLD
  }

  text(): string {
    return new TextDecoder().decode(this.#bytes)
  }

  gzip(): Blob {
    return (this.#gzip ??= new Blob([Bun.gzipSync(this.#bytes)], { type: 'application/json' }))
  }
}
