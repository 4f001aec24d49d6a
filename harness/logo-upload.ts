import sharp from 'sharp'
import { ADMIN_TOKEN, type makeApp } from './app'

/** A PNG of one colour. */
export const solidPng = (width: number, height: number, colour: string) =>
  sharp({ create: { width, height, channels: 3, background: colour } })
    .png()
    .toBuffer()

/** PUTs `image` as club `code`'s logo with the admin token; answers the path of the logo it set. */
export async function putLogo(app: Awaited<ReturnType<typeof makeApp>>, code: string, image: Buffer) {
  const res = await app.req(`/api/clubs/${code}/logo/`, {
    method: 'PUT',
    token: ADMIN_TOKEN,
    body: new Uint8Array(image),
    headers: { 'content-type': 'image/png' },
  })
  if (res.status !== 200) throw new Error(`the logo PUT answered ${res.status}: ${await res.text()}`)
  return new URL(((await res.json()) as { image_url: string }).image_url)
}
