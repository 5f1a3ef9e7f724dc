import { join } from 'node:path'
import { backupSqlite, type BackupOptions } from '../server/index.js'

/** `parlance backup`: the copy, with its progress on stderr (every 5 % of a file of more than one step) and how to restore it. */
export async function backup(options: BackupOptions): Promise<void> {
  let shown = -1
  const started = Date.now()
  const result = await backupSqlite({
    ...options,
    progress(copied, total) {
      const pct = total === 0 ? 100 : Math.floor((copied / total) * 100)
      if (pct === shown || (pct < 100 && pct - shown < 5)) return
      shown = pct
      process.stderr.write(`backup: ${pct}% (${copied} of ${total} pages)\n`)
    },
  })
  const mb = (result.bytes / 1024 / 1024).toFixed(1)
  process.stderr.write(
    `backup: wrote ${options.out} (${mb} MB, ${result.pages} pages) in ${Date.now() - started} ms` +
      (result.restarts ? `; the server wrote meanwhile, ${result.restarts} restart(s)` : '') +
      `\nrestore: put it as parlance.db in a new data directory (with ${join(options.dataDir, 'secret')} beside it if signed exports must stay valid) and serve --data that directory\n`,
  )
}
