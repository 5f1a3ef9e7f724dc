// A hand-written SVG bar chart of a result: one horizontal bar per row (ratio to the baseline) with a
// min–max whisker, one group per table. No dependency.
import type { BenchResult } from './result.js'

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

export function chart(r: BenchResult): string {
  const W = 760
  const labelW = 300
  const barW = W - labelW - 90
  const rowH = 22
  let y = 34
  const parts: string[] = []
  for (const t of r.tables) {
    const scale = Math.max(1, ...t.rows.map((x) => x.ratioMax)) * 1.05
    const sx = (v: number) => labelW + (Math.max(0, v) / scale) * barW
    parts.push(
      `<text x="10" y="${y + 12}" font-weight="bold">${esc(t.title)} — ratio to baseline (${t.higherIsBetter ? 'higher' : 'lower'} is better)</text>`,
    )
    y += 22
    const top = y
    for (const row of t.rows) {
      const fill = row.baseline ? '#9aa5b1' : '#3b7dd8'
      parts.push(
        `<text x="${labelW - 8}" y="${y + 15}" text-anchor="end">${esc(row.name)}</text>`,
        `<rect x="${labelW}" y="${y + 3}" width="${(sx(row.ratio) - labelW).toFixed(1)}" height="${rowH - 6}" fill="${fill}"/>`,
        `<line x1="${sx(row.ratioMin).toFixed(1)}" x2="${sx(row.ratioMax).toFixed(1)}" y1="${y + rowH / 2}" y2="${y + rowH / 2}" stroke="#222" stroke-width="1.5"/>`,
        `<text x="${(sx(row.ratioMax) + 6).toFixed(1)}" y="${y + 15}">${row.ratio.toFixed(2)}×</text>`,
      )
      y += rowH
    }
    parts.push(`<line x1="${sx(1).toFixed(1)}" x2="${sx(1).toFixed(1)}" y1="${top}" y2="${y}" stroke="#c33" stroke-dasharray="4 3"/>`)
    y += 14
  }
  const h = y + 8
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${h}" viewBox="0 0 ${W} ${h}" font-family="sans-serif" font-size="12">\n` +
    `<rect width="${W}" height="${h}" fill="#fff"/>\n` +
    `<text x="10" y="20" font-size="14" font-weight="bold">${esc(r.title)}</text>\n` +
    `${parts.join('\n')}\n</svg>\n`
  )
}
