import type Sharp from 'sharp'

/**
 * A club's initials on a rounded square of its colour, as a PNG: the logos of a generated campus
 * (CLUBS_SEED_FILE=demo, docs/reference.md §25), kept as uploads are. The letters are drawn from a 5×7
 * pixel font of squares, not a system font: the same bytes on every machine (a font lookup can
 * also take seconds), so the same campus has the same logo names everywhere.
 */
export async function drawLogo(initials: string, colour: string): Promise<Uint8Array> {
  const sharp = (await import('sharp')).default as typeof Sharp
  return new Uint8Array(
    await sharp(Buffer.from(logoSvg(initials, colour)))
      .png()
      .toBuffer(),
  )
}

const SIDE = 128
const PIXEL = 8

/** The logo as SVG: each letter's lit pixels as squares, the letters centred. */
export function logoSvg(initials: string, colour: string): string {
  const letters = [...initials.toUpperCase()].filter((c) => c in GLYPHS).slice(0, 2)
  const width = letters.length * 5 * PIXEL + Math.max(0, letters.length - 1) * PIXEL
  const left = (SIDE - width) / 2
  const top = (SIDE - 7 * PIXEL) / 2
  const squares: string[] = []
  letters.forEach((letter, n) => {
    GLYPHS[letter]!.forEach((row, y) => {
      for (let x = 0; x < 5; x++)
        if (row[x] === '#')
          squares.push(
            `<rect x="${left + n * 6 * PIXEL + x * PIXEL}" y="${top + y * PIXEL}" width="${PIXEL}" height="${PIXEL}"/>`,
          )
    })
  })
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${SIDE}" height="${SIDE}"><rect width="${SIDE}" height="${SIDE}" rx="20" fill="${colour}"/><g fill="#fff">${squares.join('')}</g></svg>`
}

const GLYPHS: Record<string, readonly string[]> = {
  A: ['.###.', '#...#', '#...#', '#####', '#...#', '#...#', '#...#'],
  B: ['####.', '#...#', '#...#', '####.', '#...#', '#...#', '####.'],
  C: ['.###.', '#...#', '#....', '#....', '#....', '#...#', '.###.'],
  D: ['####.', '#...#', '#...#', '#...#', '#...#', '#...#', '####.'],
  E: ['#####', '#....', '#....', '####.', '#....', '#....', '#####'],
  F: ['#####', '#....', '#....', '####.', '#....', '#....', '#....'],
  G: ['.###.', '#...#', '#....', '#.###', '#...#', '#...#', '.###.'],
  H: ['#...#', '#...#', '#...#', '#####', '#...#', '#...#', '#...#'],
  I: ['.###.', '..#..', '..#..', '..#..', '..#..', '..#..', '.###.'],
  J: ['..###', '...#.', '...#.', '...#.', '#..#.', '#..#.', '.##..'],
  K: ['#...#', '#..#.', '#.#..', '##...', '#.#..', '#..#.', '#...#'],
  L: ['#....', '#....', '#....', '#....', '#....', '#....', '#####'],
  M: ['#...#', '##.##', '#.#.#', '#.#.#', '#...#', '#...#', '#...#'],
  N: ['#...#', '##..#', '#.#.#', '#..##', '#...#', '#...#', '#...#'],
  O: ['.###.', '#...#', '#...#', '#...#', '#...#', '#...#', '.###.'],
  P: ['####.', '#...#', '#...#', '####.', '#....', '#....', '#....'],
  Q: ['.###.', '#...#', '#...#', '#...#', '#.#.#', '#..#.', '.##.#'],
  R: ['####.', '#...#', '#...#', '####.', '#.#..', '#..#.', '#...#'],
  S: ['.####', '#....', '#....', '.###.', '....#', '....#', '####.'],
  T: ['#####', '..#..', '..#..', '..#..', '..#..', '..#..', '..#..'],
  U: ['#...#', '#...#', '#...#', '#...#', '#...#', '#...#', '.###.'],
  V: ['#...#', '#...#', '#...#', '#...#', '#...#', '.#.#.', '..#..'],
  W: ['#...#', '#...#', '#...#', '#.#.#', '#.#.#', '#.#.#', '.#.#.'],
  X: ['#...#', '#...#', '.#.#.', '..#..', '.#.#.', '#...#', '#...#'],
  Y: ['#...#', '#...#', '.#.#.', '..#..', '..#..', '..#..', '..#..'],
  Z: ['#####', '....#', '...#.', '..#..', '.#...', '#....', '#####'],
}
